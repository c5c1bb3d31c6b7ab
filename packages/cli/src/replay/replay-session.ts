import type { Host, StepCall } from '@deepseek-ai/dsh-core';
import { installDryRun, installRecorder } from './dry-run.js';
import { type ReplayRow, rowOf, unmappedRow } from './rows.js';
import type { RecordedCall, Transcript } from './transcript.js';

type Args = Readonly<Record<string, unknown>>;

/** How recorded calls are run. */
export interface ReplaySettings {
  /** Run the bodies (the host's workspace should be a scratch copy); otherwise a dry run. */
  readonly execute: boolean;
  /** Absolute paths in the recording to rewrite to `workspace` (the recording's cwd, say). */
  readonly rewriteFrom: readonly string[];
  /** The workspace the calls now run against. */
  readonly workspace: string;
  /** Filled by the approval prompt: what it answered, by call id. */
  readonly approvals: Map<string, 'allowed' | 'rejected'>;
  /** Filled with the id each row's call had in the host (a repeated recorded id gets a `#n` suffix). */
  readonly hostIds?: Map<ReplayRow, string>;
}

/**
 * Runs each recorded step through `host` and returns one row per recorded
 * call. Claude Code names are mapped onto our tools only through each
 * tool's `external.claude` declaration (`host.tools.findExternal` and its
 * `fromExternal`), never through a table of our own; a dsh log's calls name
 * our tools already. Unmapped calls are reported, not run.
 */
export async function replaySteps(host: Host, transcript: Transcript, settings: ReplaySettings): Promise<ReplayRow[]> {
  if (!settings.execute) installDryRun(host);
  const decided = installRecorder(host);
  const rows: ReplayRow[] = [];
  for (const step of transcript.steps) {
    const planned: { recorded: RecordedCall; call: StepCall | undefined; row: ReplayRow | undefined }[] = [];
    const ids = new Set<string>();
    for (const recorded of step.calls) {
      const mapped = mapCall(host, transcript.format, recorded);
      if ('unmapped' in mapped) {
        planned.push({ recorded, call: undefined, row: unmappedRow(recorded, mapped.unmapped) });
        continue;
      }
      // Recordings can repeat an id within one message; the pipeline refuses that, so later copies get a suffix.
      let id = recorded.id;
      for (let n = 2; ids.has(id); n += 1) id = `${recorded.id}#${n}`;
      ids.add(id);
      const args = rewrite(mapped.args, settings.rewriteFrom, settings.workspace);
      planned.push({ recorded, call: { id, name: mapped.tool, args }, row: undefined });
    }
    const calls = planned.flatMap((p) => (p.call === undefined ? [] : [p.call]));
    const results = calls.length === 0 ? [] : (await host.runStep({ calls })).results;
    let next = 0;
    for (const p of planned) {
      if (p.row !== undefined || p.call === undefined) {
        if (p.row !== undefined) rows.push(p.row);
        continue;
      }
      const result = results[next];
      next += 1;
      if (result === undefined) continue;
      const row = rowOf(
        p.recorded,
        p.call.name,
        p.call.args,
        result,
        decided.get(p.call.id),
        settings.approvals.get(p.call.id),
        settings.execute,
      );
      rows.push(row);
      settings.hostIds?.set(row, p.call.id);
      decided.delete(p.call.id);
      settings.approvals.delete(p.call.id);
    }
  }
  return rows;
}

function mapCall(
  host: Host,
  format: Transcript['format'],
  recorded: RecordedCall,
): { tool: string; args: Args | string } | { unmapped: string } {
  if (format === 'dsh') {
    return host.tools.get(recorded.name) === undefined
      ? { unmapped: `no tool named "${recorded.name}" is configured` }
      : { tool: recorded.name, args: recorded.input };
  }
  const tool = host.tools.findExternal('claude', recorded.name);
  const external = tool?.external?.claude;
  if (tool !== undefined && external !== undefined) {
    try {
      return { tool: tool.name, args: external.fromExternal(recorded.input as Args) };
    } catch (error) {
      return { unmapped: `"${tool.name}" could not read this ${recorded.name} input: ${(error as Error).message}` };
    }
  }
  // Names no tool declares, but that name a tool of ours directly (an MCP tool, say): passed as they are.
  if (host.tools.get(recorded.name) !== undefined) return { tool: recorded.name, args: recorded.input };
  return { unmapped: `no configured tool declares the Claude Code name "${recorded.name}"` };
}

/** Replaces the recording's absolute paths with the workspace's in every top-level string argument. */
function rewrite(args: Args | string, from: readonly string[], to: string): Args | string {
  const prefixes = from.filter((f) => f.length > 1 && f !== to);
  if (typeof args === 'string' || prefixes.length === 0) return args;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    out[key] = typeof value === 'string' ? prefixes.reduce((text, prefix) => replacePath(text, prefix, to), value) : value;
  }
  return out;
}

/** Replaces `prefix` where it stands as a whole path or a path's start (`/a/b` in `/a/b/c`, not in `/a/bc`). */
function replacePath(text: string, prefix: string, to: string): string {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`${escaped}(?=/|$|[\\s"'\`;:,)])`, 'g'), to);
}

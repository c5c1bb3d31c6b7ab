import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DshError, type Host, type LoadedSessionLog, loadSessionLog, messageOf } from '@deepseek-ai/dsh-core';
import { loadConfig } from '../config.js';
import { CliError, CliErrorCode } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { buildHost } from '../host-factory.js';
import type { CliIo } from '../io.js';
import { callJson, sessionJson, unknownTypes } from '../log/log-json.js';
import { eventsOf, type RenderSettings, renderCallEvents, renderSession } from '../log/render-log.js';
import { type LoggedEvent, viewOf } from '../log/session-view.js';
import { relativeTo } from '../render/cards.js';

/** Options of `dsh log`. */
export interface LogOptions {
  readonly file: string;
  /** Show every event of this call (and its sub-calls). */
  readonly call?: string;
  readonly json: boolean;
  readonly config?: string;
}

/**
 * `dsh log FILE`: a session log for people — step by step, each call's
 * card (made by the configured tools' presenters, as the demo shows them),
 * who decided what, approvals, hooks, timings, sub-calls under their
 * parent — or with `--call ID` every event of one call; `--json` for
 * machines. A torn last line is dropped and said; event types this version
 * does not know are shown raw.
 */
export async function runLog(io: CliIo, options: LogOptions): Promise<ExitCode> {
  const file = resolve(io.cwd, options.file);
  const loaded = await load(file);
  const events = loaded.events as readonly LoggedEvent[];
  const view = viewOf(events);
  const call = options.call === undefined ? undefined : view.calls.get(options.call);
  if (options.call !== undefined && call === undefined) {
    const ids = [...view.calls.keys()];
    const shown = ids.length > 12 ? `${ids.slice(0, 12).join(', ')}, …` : ids.join(', ');
    throw new CliError(CliErrorCode.USAGE, `log: no call "${options.call}" in ${file}${ids.length === 0 ? '' : ` (its calls: ${shown})`}`);
  }
  if (options.json) {
    const report =
      call === undefined
        ? sessionJson(file, view, {
            events: events.length,
            droppedTornLine: loaded.droppedTornLine,
            unknownOutcomes: loaded.unknownOutcomes,
          })
        : { file, call: callJson(call), events: eventsOf(call) };
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return ExitCode.OK;
  }
  const { host, problem, workspace } = await presenters(io, options.config);
  try {
    const settings: RenderSettings = { style: io.style, host, rawLimit: io.isTTY ? 300 : Number.POSITIVE_INFINITY };
    const s = io.style;
    const calls = [...view.calls.values()];
    const header = [
      `${s.bold('dsh log')} ${file}`,
      s.dim(
        [
          view.session === undefined ? undefined : `session ${view.session}`,
          `${events.length} events`,
          // A log written before core logged step/start and step/end (and without agent/turn events) cannot
          // tell a step of 6 calls from 6 steps of one: say the steps are guessed.
          `${plural(view.steps.length, 'step')}${view.stepsMarked || view.steps.length === 0 ? '' : ' (guessed: the log marks none)'}`,
          plural(view.counts.calls, 'call'),
          view.counts.subCalls > 0 ? plural(view.counts.subCalls, 'sub-call') : undefined,
        ]
          .filter((p) => p !== undefined)
          .join(' · '),
      ),
    ];
    if (loaded.droppedTornLine)
      header.push(s.yellow('the last line was cut mid-write (the process stopped while logging); it is left out'));
    if (loaded.unknownOutcomes.length > 0) {
      header.push(
        s.yellow(`no result was logged for ${loaded.unknownOutcomes.join(', ')}: the session ended first; they may or may not have run`),
      );
    }
    const unknown = unknownTypes(view);
    if (unknown.length > 0) header.push(s.dim(`event types this version shows raw: ${unknown.join(', ')}`));
    if (problem !== undefined) header.push(s.dim(`plain cards: the configured tools could not be loaded (${problem})`));
    io.stdout.write(`${header.join('\n')}\n`);
    // Paths under the session's workspace read relative to it, as in the demo's cards.
    io.stdout.write(
      relativeTo(
        sessionRoot(events) ?? workspace,
        call === undefined ? renderSession(view, settings) : `\n${renderCallEvents(call, settings)}`,
      ),
    );
    if (call === undefined && view.calls.size > 0) {
      const example = calls.find((c) => c.events.some((e) => e.type === 'approval/request')) ?? calls[0];
      io.stdout.write(`\n${s.dim(`Every event of one call: dsh log ${options.file} --call ${example?.id ?? 'ID'}`)}\n`);
    }
  } finally {
    await host?.close();
  }
  return ExitCode.OK;
}

/**
 * The directory the session worked in, as far as the log says: the `cwd`
 * its commands ran in (tool-bash reports it). Undefined when no result says.
 */
function sessionRoot(events: readonly LoggedEvent[]): string | undefined {
  for (const event of events) {
    if (event.type !== 'tool/result') continue;
    const outcome = (event.data as { outcome?: { status?: unknown; output?: { cwd?: unknown } } }).outcome;
    if (outcome?.status === 'ok' && typeof outcome.output?.cwd === 'string' && outcome.output.cwd.startsWith('/'))
      return outcome.output.cwd;
  }
  return undefined;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

async function load(file: string): Promise<LoadedSessionLog> {
  try {
    return await loadSessionLog(file);
  } catch (error) {
    // Named as replay names a file it cannot read: Node's EISDIR message, unlike ENOENT's, carries no path.
    const message = DshError.isInstance(error)
      ? `${messageOf(error)}${looksLikeClaudeTranscript(file) ? `; this is a Claude Code transcript: dsh replay ${file} reads it` : ''}`
      : `${file}: cannot read the session log: ${messageOf(error)}`;
    throw new CliError(CliErrorCode.TRANSCRIPT_INVALID, message, { cause: error });
  }
}

/** True when the file's first JSON line has Claude Code's transcript shape (`type` user/assistant/summary…, no `seq`). */
function looksLikeClaudeTranscript(file: string): boolean {
  try {
    const first = readFileSync(file, 'utf8')
      .split('\n')
      .find((line) => line.trim() !== '');
    const entry: unknown = JSON.parse(first ?? '');
    if (typeof entry !== 'object' || entry === null) return false;
    const e = entry as Record<string, unknown>;
    return typeof e.type === 'string' && e.seq === undefined && ('sessionId' in e || 'message' in e || 'uuid' in e || e.type === 'summary');
  } catch {
    return false;
  }
}

/** The configured tools, for their presenters; none (plain cards) when the configuration cannot be used. */
async function presenters(
  io: CliIo,
  config: string | undefined,
): Promise<{ host: Host | undefined; problem: string | undefined; workspace: string | undefined }> {
  try {
    const loaded = loadConfig(io.cwd, config);
    // Only presenters are needed: MCP servers are not started to read a log (their calls get plain cards).
    const { host } = await buildHost({
      workspace: loaded.workspace,
      config: loaded.config,
      configSource: loaded.file ?? 'defaults',
      overrides: { mcp: false },
    });
    return { host, problem: undefined, workspace: loaded.file === undefined ? undefined : loaded.workspace };
  } catch (error) {
    // An explicit --config that is wrong is the user's mistake to hear about; a stray one in cwd only costs the nicer cards.
    if (config !== undefined) throw error;
    return { host: undefined, problem: messageOf(error), workspace: undefined };
  }
}

import { readFileSync } from 'node:fs';
import { DshError, loadSessionLog } from '@deepseek-ai/dsh-core';
import { CliError, CliErrorCode } from '../errors.js';

/** One recorded tool call, in the vocabulary it was recorded in. */
export interface RecordedCall {
  /** The call's id in the recording (`toolu_…` for Claude Code). */
  readonly id: string;
  /** The tool's name as recorded: Claude Code's (`Bash`) or ours (`bash`). */
  readonly name: string;
  /** The input as recorded: an object, or (dsh logs) the JSON text the model sent. */
  readonly input: Readonly<Record<string, unknown>> | string;
  /** The 1-based line of the recording it came from. */
  readonly line: number;
}

/** The calls of one assistant message. */
export interface RecordedStep {
  readonly calls: readonly RecordedCall[];
}

/** A transcript read from disk. */
export interface Transcript {
  /** `claude`: a Claude Code transcript; `dsh`: a dsh session log. */
  readonly format: 'claude' | 'dsh';
  readonly steps: readonly RecordedStep[];
  /** The working directory the session ran in, when the recording says (Claude Code's `cwd`). */
  readonly cwd: string | undefined;
  /** Lines left out, each with why: a line that is not JSON, or a last line cut mid-write. */
  readonly skipped: readonly SkippedLine[];
}

/** A line of the recording that was left out. */
export interface SkippedLine {
  /** 1-based. */
  readonly line: number;
  readonly reason: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads a Claude Code transcript (JSONL; `assistant` lines whose
 * `message.content` holds `tool_use` blocks, consecutive lines of one
 * `message.id` forming one step) or a dsh session log (top-level `tool/call`
 * events; a step ends when all its calls have results). A line that cannot
 * be read (not JSON, not an object, a malformed tool_use block) is left out
 * and listed in `skipped`, as is a last line cut mid-write: one bad line does
 * not cost the rest of the recording, and nothing is dropped silently.
 */
export async function readTranscript(path: string): Promise<Transcript> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(CliErrorCode.TRANSCRIPT_INVALID, `${path}: cannot read: ${(error as Error).message}`);
  }
  const lines = text.split('\n');
  const firstLine = lines.find((l) => l.trim() !== '');
  if (firstLine === undefined) throw new CliError(CliErrorCode.TRANSCRIPT_INVALID, `${path}: the file is empty`);
  let first: unknown;
  try {
    first = JSON.parse(firstLine);
  } catch {
    throw new CliError(
      CliErrorCode.TRANSCRIPT_INVALID,
      `${path}:1: not a JSON line: neither a Claude Code transcript nor a dsh session log`,
    );
  }
  if (isObject(first) && typeof first.seq === 'number' && typeof first.session === 'string') return readDshLog(path);
  return readClaude(path, lines);
}

function readClaude(path: string, lines: readonly string[]): Transcript {
  const steps: { messageId: string | undefined; calls: RecordedCall[] }[] = [];
  const skipped: SkippedLine[] = [];
  let cwd: string | undefined;
  const lastContent = lines.findLastIndex((l) => l.trim() !== '');
  for (const [index, raw] of lines.entries()) {
    if (raw.trim() === '') continue;
    let entry: unknown;
    try {
      entry = JSON.parse(raw);
    } catch {
      // A session still being written (or killed mid-write) ends in a torn line.
      const torn = index === lastContent && !raw.trimEnd().endsWith('}');
      skipped.push({ line: index + 1, reason: torn ? 'the last line was cut mid-write' : 'not a JSON line' });
      continue;
    }
    if (!isObject(entry)) {
      skipped.push({ line: index + 1, reason: 'not a JSON object' });
      continue;
    }
    if (typeof entry.cwd === 'string' && cwd === undefined) cwd = entry.cwd;
    if (entry.type !== 'assistant' || !isObject(entry.message)) continue;
    const content = entry.message.content;
    if (!Array.isArray(content)) continue;
    const messageId = typeof entry.message.id === 'string' ? entry.message.id : undefined;
    const calls: RecordedCall[] = [];
    for (const [b, block] of content.entries()) {
      if (!isObject(block) || block.type !== 'tool_use') continue;
      if (typeof block.id !== 'string' || typeof block.name !== 'string' || !isObject(block.input)) {
        skipped.push({
          line: index + 1,
          reason: `message.content[${b}]: a tool_use block needs a string id, a string name and an object input`,
        });
        continue;
      }
      calls.push({ id: block.id, name: block.name, input: block.input, line: index + 1 });
    }
    if (calls.length === 0) continue;
    const last = steps.at(-1);
    if (last !== undefined && messageId !== undefined && last.messageId === messageId) last.calls.push(...calls);
    else steps.push({ messageId, calls });
  }
  if (steps.length === 0) {
    const bad =
      skipped.length === 0
        ? ''
        : ` (${skipped.length} line${skipped.length === 1 ? '' : 's'} unreadable, the first ${skipped[0]?.line}: ${skipped[0]?.reason})`;
    throw new CliError(
      CliErrorCode.TRANSCRIPT_INVALID,
      `${path}: no tool calls found${bad} (expected Claude Code lines {"type":"assistant","message":{"content":[{"type":"tool_use",…}]}} or a dsh session log)`,
    );
  }
  return { format: 'claude', steps: steps.map((s) => ({ calls: s.calls })), cwd, skipped };
}

async function readDshLog(path: string): Promise<Transcript> {
  let events: Awaited<ReturnType<typeof loadSessionLog>>['events'];
  let torn: boolean;
  try {
    ({ events, droppedTornLine: torn } = await loadSessionLog(path));
  } catch (error) {
    const message = DshError.isInstance(error) ? error.message : (error as Error).message;
    throw new CliError(CliErrorCode.TRANSCRIPT_INVALID, message);
  }
  const steps: RecordedCall[][] = [];
  let current: RecordedCall[] = [];
  const open = new Set<string>();
  for (const [index, event] of events.entries()) {
    if (event.type === 'tool/result' && event.call !== undefined) open.delete(event.call);
    if (event.type !== 'tool/call' || event.call === undefined || event.data.parent !== undefined) continue;
    if (open.size === 0 && current.length > 0) {
      steps.push(current);
      current = [];
    }
    const args = event.data.args;
    const input = typeof args === 'string' ? args : isObject(args) ? args : {};
    current.push({ id: event.call, name: event.data.name, input, line: index + 1 });
    open.add(event.call);
  }
  if (current.length > 0) steps.push(current);
  if (steps.length === 0) throw new CliError(CliErrorCode.TRANSCRIPT_INVALID, `${path}: the session log has no tool calls`);
  const skipped = torn ? [{ line: events.length + 1, reason: 'the last line was cut mid-write' }] : [];
  return { format: 'dsh', steps: steps.map((calls) => ({ calls })), cwd: undefined, skipped };
}

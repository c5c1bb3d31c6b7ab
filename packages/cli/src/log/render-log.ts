import type { CallIdentity, Host } from '@deepseek-ai/dsh-core';
import { indent, renderCompleted, renderPending } from '../render/cards.js';
import type { Style } from '../render/style.js';
import { describeEvent, formatMs } from './describe-event.js';
import { cardOf } from './log-cards.js';
import { type CallView, elapsedMs, type LoggedEvent, type SessionView, type StepView } from './session-view.js';

/** How the log is rendered. */
export interface RenderSettings {
  readonly style: Style;
  /** Tools whose presenters make the cards; undefined: plain cards. */
  readonly host: Host | undefined;
  /** Cut raw (unknown) event data to this many characters in the overview. */
  readonly rawLimit: number;
}

/** Event types the overview leaves to `--call`: what they say is in the card, a line or the step's header already. */
const quiet = new Set(['tool/call', 'tool/result', 'fs/observed', 'step/start', 'step/end']);

/** The whole log, step by step: cards, who decided, approvals, hooks, timings, sub-calls under their parent. */
export function renderSession(view: SessionView, settings: RenderSettings): string {
  const out: string[] = [];
  for (const event of view.preamble) out.push(noteLine(settings, event));
  for (const step of view.steps) out.push('', ...renderStep(step, settings));
  return `${out.join('\n')}\n`;
}

function renderStep(step: StepView, settings: RenderSettings): string[] {
  const s = settings.style;
  const first = step.calls[0]?.startedAt ?? step.turn?.at;
  const ends = step.calls.map((c) => c.endedAt).filter((e): e is string => e !== undefined);
  const last = ends.sort().at(-1);
  const took = elapsedMs(first, last);
  const parts = [
    `Step ${step.index}`,
    first === undefined ? undefined : clock(first),
    `${step.calls.length} call${step.calls.length === 1 ? '' : 's'}`,
    took === undefined ? undefined : formatMs(took),
  ].filter((p) => p !== undefined);
  const out = [s.bold(parts.join(' · '))];
  if (step.turn !== undefined) out.push(s.dim(describeEvent(step.turn, settings.rawLimit).text));
  out.push(...stepEndLines(step, s));
  for (const call of step.calls) out.push(...renderCall(call, settings));
  const context = step.notes.filter((n) => n.type === 'context/message');
  for (const note of step.notes) {
    // A resume's re-run step: the calls' own lines say they run again.
    if (note.type !== 'context/message' && !quiet.has(note.type)) out.push(noteLine(settings, note));
  }
  for (const message of context) out.push(...contextLines(s, message));
  return out;
}

/** What a marked step's header says besides its counts: how it ended when not simply completed, calls the log never reached. */
function stepEndLines(step: StepView, s: Style): string[] {
  if (step.start === undefined) return [];
  const out: string[] = [];
  const listed = (step.start.data as { calls?: unknown }).calls;
  const missing = Array.isArray(listed) ? listed.filter((id) => !step.calls.some((c) => c.id === id)) : [];
  if (missing.length > 0) out.push(s.yellow(`the log has no tool/call for ${missing.join(', ')}: the process stopped before it`));
  if (step.end === undefined) {
    out.push(s.yellow('the log has no end for this step: it was still running, or the process stopped during it'));
    return out;
  }
  const end = (step.end.data as { end?: unknown }).end;
  if (end === 'completed') return out;
  const { text } = describeEvent(step.end);
  out.push(end === 'failed' ? s.red(text) : s.yellow(text));
  return out;
}

/** One call as the demo shows it: its completed card with how long it took, what was decided and by whom, then its sub-calls. */
export function renderCall(call: CallView, settings: RenderSettings): string[] {
  const s = settings.style;
  const identity: CallIdentity = { id: call.id, name: call.name, token: '' };
  const took = elapsedMs(call.startedAt, call.endedAt);
  const timing = took === undefined ? '' : ` ${s.dim(`· ${formatMs(took)}`)}`;
  const out: string[] = [];
  let body: string[] = [];
  if (call.outcome === undefined) {
    const pending = renderPending(s, identity, { title: call.name, summary: argsSummary(call.args) });
    out.push(`${pending}${timing}`);
    out.push(
      indent(
        s.yellow(
          call.result === undefined
            ? 'no result in the log'
            : `a result this version cannot read: tool/result ${cut(JSON.stringify(call.result), settings.rawLimit)}`,
        ),
      ),
    );
  } else {
    const card = cardOf(settings.host, call, call.outcome);
    const [head = '', ...rest] = renderCompleted(s, identity, card, call.outcome, { omitBody: true }).split('\n');
    out.push(`${head}${timing}`, ...rest);
    if (call.synthetic) out.push(indent(s.yellow('the log ends before this call had a result: it may or may not have run')));
    if (card.body !== undefined && card.body !== '') {
      const withBody = renderCompleted(s, identity, card, call.outcome).split('\n');
      body = withBody.slice(1 + rest.length);
    }
  }
  out.push(...storyLines(call, settings));
  // A program's text before the calls it made.
  out.push(...body);
  for (const child of call.children) out.push(...renderCall(child, settings).map((l) => `    ${l}`));
  return out;
}

/** The lines between a call's card and its body: decisions, approvals, hooks, plugin events, unknown events raw. */
function storyLines(call: CallView, settings: RenderSettings): string[] {
  const s = settings.style;
  const lines: string[] = [];
  const hookResults = new Set(call.events.filter((e) => e.type === 'hook/result').map((e) => hookKey(e)));
  let decided: string | undefined;
  for (const event of call.events) {
    if (quiet.has(event.type)) continue;
    if (event.type === 'hook/invoked' && hookResults.has(hookKey(event))) continue;
    if (event.type === 'tool/code-dispatch' && !droppedContext(event)) continue;
    const reason = (event.data as { reason?: unknown }).reason;
    if (event.type === 'permissions/decision') decided = typeof reason === 'string' ? reason : undefined;
    // The request repeats the decision's reason just above it; said once is enough.
    const shown =
      event.type === 'approval/request' && reason === decided
        ? { ...event, data: { ...(event.data as object), reason: undefined } }
        : event;
    const { text, raw } = describeEvent(shown as LoggedEvent, settings.rawLimit);
    const mark = event.type === 'tool/late-settlement' ? s.yellow('!') : event.type.startsWith('approval/') ? s.bold('?') : s.dim('·');
    lines.push(`    ${mark} ${raw ? s.dim(`(unknown to this version) ${text}`) : text}`);
  }
  return lines;
}

/**
 * Every event of one call and of its sub-calls, in log order, each with
 * its sequence number, time since the call started and (for a sub-call's)
 * the sub-call's id; unknown types with their whole data.
 */
export function renderCallEvents(call: CallView, settings: RenderSettings): string {
  const s = settings.style;
  const events = eventsOf(call);
  const out = [...renderCall(call, settings), '', s.bold(`${events.length} events`)];
  const seqWidth = Math.max(...events.map((e) => String(e.seq).length));
  for (const event of events) {
    const since = elapsedMs(call.startedAt, event.at);
    const who = event.call === call.id ? '' : `[${event.call}] `;
    const { text } = describeEvent(event);
    out.push(
      `  ${s.dim(`#${String(event.seq).padStart(seqWidth)} ${(since === undefined ? '?' : `+${formatMs(since)}`).padStart(9)}`)}  ${s.cyan(event.type)}  ${who}${text}`,
    );
  }
  return `${out.join('\n')}\n`;
}

/** A call's events and its sub-calls' (recursively), in log order. */
export function eventsOf(call: CallView): LoggedEvent[] {
  const all: LoggedEvent[] = [];
  const walk = (c: CallView): void => {
    all.push(...c.events);
    for (const child of c.children) walk(child);
  };
  walk(call);
  return all.sort((a, b) => a.seq - b.seq);
}

function contextLines(s: Style, message: LoggedEvent): string[] {
  const data = message.data as { parts?: unknown; text?: unknown };
  const parts = Array.isArray(data.parts) ? data.parts : [];
  const lines = [s.dim('context for the next model message:')];
  for (const part of parts) {
    const p = part as { call?: unknown; by?: unknown; text?: unknown };
    const from = typeof p.by === 'string' ? ` ${s.dim(`(${p.by}${typeof p.call === 'string' ? `, after ${p.call}` : ''})`)}` : '';
    lines.push(`  ${s.dim('·')} ${String(p.text ?? '')}${from}`);
  }
  if (parts.length === 0 && typeof data.text === 'string') lines.push(`  ${s.dim('·')} ${data.text}`);
  return lines;
}

function noteLine(settings: RenderSettings, event: LoggedEvent): string {
  const { text, raw } = describeEvent(event, settings.rawLimit);
  return `${settings.style.dim('·')} ${raw ? settings.style.dim(`(unknown to this version) ${text}`) : text}`;
}

function hookKey(event: LoggedEvent): string {
  const d = event.data as { hook?: unknown; event?: unknown };
  return `${String(d.hook)}\u0000${String(d.event)}`;
}

function droppedContext(event: LoggedEvent): boolean {
  const d = event.data as { droppedContext?: unknown };
  return typeof d.droppedContext === 'number' && d.droppedContext > 0;
}

function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

function argsSummary(args: unknown): string {
  const text = typeof args === 'string' ? args : (JSON.stringify(args) ?? '');
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** `15:56:53.369` from an ISO timestamp (UTC, as logged). */
function clock(at: string): string {
  return /T(\d\d:\d\d:\d\d(?:\.\d+)?)/.exec(at)?.[1] ?? at;
}

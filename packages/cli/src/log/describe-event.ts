import type { LoggedEvent } from './session-view.js';

type Data = Readonly<Record<string, unknown>>;
const isRecord = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** `1 call`, `2 calls`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Milliseconds for people: `61 ms`, `1.2 s`. */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** One logged event as one line, without a prefix. */
export type Describer = (data: Data, event: LoggedEvent) => string | undefined;

/** Who decided, from a `permissions/decision`'s `by`: `allow rule "Bash(echo *)" (.claude/settings.json:5)`, `mode acceptEdits`. */
export function decidedByText(by: unknown): string {
  if (!Array.isArray(by)) return '';
  return by
    .map((b) => {
      if (!isRecord(b)) return '?';
      if (b.kind === 'rule') {
        const where = str(b.source) === undefined ? '' : ` (${b.source}${num(b.line) === undefined ? '' : `:${b.line}`})`;
        return `${str(b.list) ?? ''} rule "${str(b.rule) ?? '?'}"${where}`;
      }
      if (b.kind === 'grant') return `remembered grant ${str(b.grant) ?? '?'} "${str(b.rule) ?? '?'}"`;
      if (b.kind === 'mode') return `mode ${str(b.mode) ?? '?'}`;
      if (b.kind === 'tap') return `tap ${str(b.tap) ?? '?'}`;
      return JSON.stringify(b);
    })
    .join(', ');
}

const approvalSources: Readonly<Record<string, string>> = {
  provider: 'the approval provider',
  remembered: 'a remembered grant',
  timeout: 'the approval timeout',
  none: 'no approval provider (none configured)',
  step: 'the step (cancelled while waiting)',
};

/** How a `step/end` says its step ended, for people. */
const stepEnds: Readonly<Record<string, string>> = {
  completed: 'completed',
  aborted: 'aborted (its signal fired; every call still has its result)',
  failed: 'failed',
  interrupted: 'cut by a crash (the resume answered its calls)',
};

/**
 * What this version knows how to say about each event type. A type not here,
 * or one whose data does not have the expected fields (a log from another
 * version), is shown raw: its type and its data as JSON.
 */
const describers: Readonly<Record<string, Describer>> = {
  'tool/call': (d) => `call ${str(d.name) ?? '?'} ${argsText(d.args)}${str(d.parent) === undefined ? '' : ` (sub-call of ${d.parent})`}`,
  'tool/result': (d) => {
    const o = d.outcome;
    if (!isRecord(o) || typeof o.status !== 'string') return undefined;
    const code = o.status === 'error' && isRecord(o.error) ? str(o.error.code) : str(o.code);
    const by = str(o.by) === undefined ? str(o.stage) : `${str(o.stage)}: ${o.by}`;
    return `result ${o.status}${code === undefined ? '' : ` ${code}`} (${by ?? '?'})${d.synthetic === true ? ' — made up: the log ends before this call had a result' : ''}`;
  },
  'permissions/decision': (d) => {
    if (str(d.decision) === undefined) return undefined;
    const by = decidedByText(d.by);
    // The reason names the rules again; for a mode (or a tap) it says what the mode allows or why it asks.
    const rules = Array.isArray(d.by) && d.by.length > 0 && d.by.every((b) => isRecord(b) && (b.kind === 'rule' || b.kind === 'grant'));
    const why = (str(d.reason) ?? '').replace(/^permissions \(mode [^)]*\): /, '');
    return `permissions decided ${d.decision}${by === '' ? '' : ` by ${by}`}${rules || why === '' ? '' : `: ${why}`}`;
  },
  'permissions/grant': (d) =>
    isRecord(d.grant)
      ? `grant ${str(d.action) ?? '?'}: ${str(d.grant.id) ?? '?'} (${str(d.grant.scope) ?? '?'}) ${JSON.stringify(d.grant.rules ?? [])}`
      : undefined,
  'permissions/problem': (d) => `permissions problem ${str(d.code) ?? '?'}: ${str(d.message) ?? ''}`,
  'approval/request': (d) =>
    `approval asked${str(d.by) === undefined ? ' (host default decision)' : ` by ${d.by}`}: ${str(d.name) ?? '?'} ${argsText(d.args)}${str(d.reason) === undefined ? '' : ` — ${d.reason}`}`,
  'approval/answer': (d) => {
    if (str(d.answer) === undefined) return undefined;
    const source = str(d.source);
    const who = source === undefined ? '' : ` by ${approvalSources[source] ?? source}`;
    const after = num(d.elapsedMs) === undefined ? '' : ` after ${formatMs(d.elapsedMs as number)}`;
    const grant = str(d.grant) === undefined ? '' : ` (grant ${d.grant})`;
    return `approval answered ${d.answer}${who}${after}${grant}${str(d.message) === undefined ? '' : ` — ${d.message}`}`;
  },
  'hook/invoked': (d) => `hook ${str(d.event) ?? '?'} started: ${str(d.command) ?? str(d.hook) ?? '?'}`,
  'hook/result': (d) => {
    const exit = d.exitCode === null ? 'no exit code' : num(d.exitCode) === undefined ? undefined : `exit ${d.exitCode}`;
    const parts = [
      exit,
      str(d.signal) === undefined ? undefined : `signal ${d.signal}`,
      d.timedOut === true ? 'timed out' : undefined,
      str(d.decision) === undefined ? undefined : `decided ${d.decision}`,
      str(d.error),
      num(d.durationMs) === undefined ? undefined : formatMs(d.durationMs as number),
    ].filter((p) => p !== undefined);
    return `hook ${str(d.event) ?? '?'} ${str(d.hook) ?? '?'}: ${parts.join(', ')}`;
  },
  'tool/code-dispatch': (d) =>
    str(d.status) === undefined
      ? `program called ${str(d.name) ?? '?'} [${str(d.subCall) ?? '?'}]`
      : `program's call ${str(d.name) ?? '?'} [${str(d.subCall) ?? '?'}] settled ${d.status}${
          num(d.droppedContext) ? `; ${count(num(d.droppedContext) as number, 'part')} of additional context dropped` : ''
        }`,
  'tool/late-settlement': (d) =>
    `late settlement: the body settled ${str(d.status) ?? '?'}${str(d.code) === undefined ? '' : ` ${d.code}`} after ${
      num(d.elapsedMs) === undefined ? '?' : formatMs(d.elapsedMs as number)
    }, past its ${num(d.graceMs) === undefined ? '?' : formatMs(d.graceMs as number)} grace period; the result above stands`,
  'tool/interrupted': (d) => {
    const seqText = num(d.callSeq) === undefined ? '' : ` (its call is event ${d.callSeq})`;
    if (d.resolution === 'rerun')
      return `interrupted by a crash${seqText}: ${str(d.name) ?? '?'} is idempotent, so the resume runs it again`;
    if (d.resolution !== 'interrupted') return undefined;
    const why = d.reason === 'unknown-tool' ? 'its tool is not registered' : d.reason === 'sub-call' ? 'a sub-call' : 'not idempotent';
    return `interrupted by a crash${seqText}: ${str(d.name) ?? '?'} ends TOOL_INTERRUPTED (${why}): outcome unknown, verify before retrying`;
  },
  'session/resumed': (d) =>
    num(d.afterSeq) === undefined
      ? undefined
      : `session resumed after event ${d.afterSeq}: ${num(d.interrupted) === undefined ? '? calls' : count(num(d.interrupted) as number, 'call')} had no result${
          num(d.tornLine) === undefined ? '' : `; the torn line ${d.tornLine} is skipped`
        }`,
  'context/message': (d) => (str(d.text) === undefined ? undefined : `context for the next model message: ${oneLine(d.text as string)}`),
  'fs/observed': (d) =>
    d.state === 'absent'
      ? `observed ${str(d.path) ?? '?'}: absent`
      : `observed ${str(d.path) ?? '?'}: ${num(d.size) ?? '?'} bytes, sha256 ${(str(d.sha256) ?? '?').slice(0, 12)}…${d.complete === false ? ' (read in part)' : ''}`,
  'todo/write': (d) => {
    if (!Array.isArray(d.todos)) return undefined;
    const items = d.todos.map((t) =>
      isRecord(t) ? `${t.status === 'completed' ? '☑' : t.status === 'in_progress' ? '▶' : '☐'} ${str(t.content) ?? '?'}` : '?',
    );
    return `todo list (${items.length}): ${items.join(' · ')}`;
  },
  'bash/sandbox': (d) =>
    `sandbox: ${str(d.provider) ?? '?'}${str(d.fallbackReason) === undefined ? '' : ` (fallback: ${d.fallbackReason})`}`,
  'network/connect': (d) => {
    const where = `${str(d.host) ?? '?'}${num(d.port) === undefined ? '' : `:${d.port}`}`;
    const how = `${str(d.protocol) ?? '?'}, decided by ${str(d.decidedBy) ?? '?'}`;
    const code = str(d.code) === undefined ? '' : `: ${d.code}${str(d.reason) === undefined ? '' : ` (${d.reason})`}`;
    if (d.decision === 'deny') return `network: ${where} refused (${how})${code}`;
    const took = num(d.durationMs) === undefined ? '?' : formatMs(d.durationMs as number);
    return `network: ${where} opened (${how}), ${num(d.bytesUp) ?? '?'} B up, ${num(d.bytesDown) ?? '?'} B down in ${took}${code}`;
  },
  'retry/attempt': (d) =>
    `attempt ${num(d.attempt) ?? '?'} of ${num(d.maxAttempts) ?? '?'} failed ${str(d.code) ?? '?'} after ${
      num(d.durationMs) === undefined ? '?' : formatMs(d.durationMs as number)
    }: ${str(d.decision) ?? '?'}`,
  'code-mode/call-cancelled': (d) => `program's call ${str(d.name) ?? '?'} [${str(d.subCall) ?? '?'}] cancelled: ${str(d.reason) ?? '?'}`,
  'skill/loaded': (d) =>
    `skill loaded: ${str(d.name) ?? '?'} from ${str(d.source) ?? str(d.directory) ?? '?'} (${num(d.files) === undefined ? '? files' : count(num(d.files) as number, 'file')})`,
  'run/task': (d) =>
    str(d.task) === undefined
      ? undefined
      : `task (dsh run, ${str(d.provider) ?? '?'}${str(d.model) === undefined ? '' : ` ${d.model}`}): ${oneLine(d.task as string)}`,
  'step/start': (d) => {
    if (!Array.isArray(d.calls)) return undefined;
    const whose = str(d.parent) === undefined ? 'step' : `subagent's step (under ${d.parent})`;
    const rerun = d.rerun === true ? ', which a resume runs again' : '';
    return `${whose} of ${count(d.calls.length, 'call')}${rerun}: ${d.calls.map(String).join(', ')}`;
  },
  'step/end': (d) => {
    const end = str(d.end);
    if (end === undefined) return undefined;
    const statuses = Array.isArray(d.statuses) ? d.statuses.map((s) => (typeof s === 'string' ? s : 'none')) : [];
    const tally = [...new Set(statuses)].map((s) => `${statuses.filter((x) => x === s).length} ${s}`).join(', ');
    const error = isRecord(d.error) ? `: ${str(d.error.code) ?? '?'} ${str(d.error.message) ?? ''}` : '';
    return `step ${stepEnds[end] ?? end}${tally === '' ? '' : ` (${tally})`}${error} (step/start is event ${num(d.startSeq) ?? '?'})`;
  },
  'agent/turn': (d) => {
    const calls = Array.isArray(d.calls) ? d.calls.length : 0;
    const text = str(d.text) === undefined || d.text === '' ? '' : ` — ${oneLine(d.text as string)}`;
    const whose = str(d.parent) === undefined ? 'model turn' : `subagent's model turn (under ${d.parent})`;
    return `${whose} ${num(d.turn) ?? '?'}${str(d.model) === undefined ? '' : ` (${d.model})`}: ${count(calls, 'call')}, stop ${str(d.stop) ?? '?'}${text}`;
  },
  'subagent/start': (d) => {
    if (!isRecord(d.agent)) return undefined;
    const tools = Array.isArray(d.tools) ? d.tools.length : '?';
    const model = str(d.model) === undefined ? '' : `, model ${d.model}`;
    return `subagent ${str(d.agent.type) ?? '?'} started (depth ${num(d.depth) ?? '?'}, ${tools} tools, ${str(d.source) ?? '?'} definition${model}): ${oneLine(str(d.description) ?? '')}`;
  },
  'subagent/end': (d) => {
    if (!isRecord(d.agent)) return undefined;
    const usage = isRecord(d.usage) ? `, ${num(d.usage.inputTokens) ?? '?'} tokens in, ${num(d.usage.outputTokens) ?? '?'} out` : '';
    const outcome = str(d.outcome) === 'ok' ? 'ok' : `${str(d.outcome) ?? '?'}${str(d.code) === undefined ? '' : ` ${d.code}`}`;
    return `subagent ${str(d.agent.type) ?? '?'} ended ${outcome}: stop ${str(d.stop) ?? '?'}, ${num(d.turns) === undefined ? '? turns' : count(num(d.turns) as number, 'turn')}, ${num(d.calls) === undefined ? '? calls' : count(num(d.calls) as number, 'call')}${usage}`;
  },
  'hooks-bridge/config-problem': (d) =>
    `hook configuration problem in ${str(d.source) ?? '?'} ${str(d.entry) ?? ''}: ${str(d.message) ?? ''}`,
};

/** The event types this version describes in words; any other is shown raw. */
export const describedEventTypes: readonly string[] = Object.keys(describers);

/** The event as one line: in words for a type this version knows, else `type {data as JSON}` (never throws). */
export function describeEvent(event: LoggedEvent, rawLimit = Number.POSITIVE_INFINITY): { readonly text: string; readonly raw: boolean } {
  const describe = describers[event.type];
  if (describe !== undefined && isRecord(event.data)) {
    try {
      const text = describe(event.data, event);
      if (text !== undefined) return { text, raw: false };
    } catch {
      // A shape this version did not expect: fall through to the raw form.
    }
  }
  return { text: `${event.type} ${cut(safeJson(event.data), rawLimit)}`, raw: true };
}

function argsText(args: unknown): string {
  return cut(typeof args === 'string' ? args : safeJson(args), 200);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

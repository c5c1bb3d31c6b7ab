import { existsSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { stringify } from 'lossless-json';
import { DshError, ErrorCode } from './errors.js';
import type { AnySessionEvent, EventData, EventType } from './events.js';
import type { Host } from './host.js';
import { runtimeOf } from './internal/host-runtimes.js';
import type { LockedJsonlSink } from './locked-jsonl-sink.js';
import { type CallIdentity, errorOutcome, type Outcome } from './outcome.js';
import type { Runtime } from './runtime.js';
import { type JournalCall, journalOf, type OpenCall, readSessionJournal, type SessionJournal } from './session-journal.js';
import { type ContextMessage, runStep } from './step.js';

/** How `resumeSession` runs the calls it runs again. */
export interface ResumeOptions {
  /** Cancels the re-run calls; each still gets its one result (`ABORTED…`). */
  readonly signal?: AbortSignal;
}

/** A top-level call of the session with its one result. */
export interface SessionCall {
  readonly id: string;
  readonly name: string;
  /** The arguments as the model sent them (JSON text or an object), from its `tool/call` event. */
  readonly args: unknown;
  readonly outcome: Outcome;
}

/** A call the resume found without a result, and how it was answered. */
export interface ResumedCall extends SessionCall {
  /** `rerun`: its idempotent tool ran again through the pipeline; `interrupted`: it ended `TOOL_INTERRUPTED`. */
  readonly resolution: 'rerun' | 'interrupted';
}

/** What an agent loop needs to continue a resumed session. */
export interface ResumedSession {
  readonly session: string;
  /** The `seq` of the last event before the resume; the resume's first event is `afterSeq + 1`. */
  readonly afterSeq: number;
  /** The 1-based line of the torn last line the crash left, now skipped by readers; absent when none. */
  readonly tornLine: number | undefined;
  /** The model's calls that had no result, in the model's order, with the result each now has. */
  readonly resumed: readonly ResumedCall[];
  /**
   * Every model call of the session (sub-calls left out), in the order the model made them, each with
   * its one result: what a loop replays as tool results. Which calls shared an assistant message is
   * in the log's `step/start` events (logs written before them do not say); a loop that keeps its own
   * transcript answers its last message's calls from `resumed`.
   */
  readonly calls: readonly SessionCall[];
  /** The additional context the re-run calls added, for the message after their results. */
  readonly context?: ContextMessage;
}

/** The log a session is resumed from: the path of its JSONL file, or its events. */
export type ResumeSource = string | readonly AnySessionEvent[];

function refused(message: string): DshError {
  return new DshError(ErrorCode.RESUME_REFUSED, message);
}

/**
 * The message of a `TOOL_INTERRUPTED` outcome, as the model reads it: also
 * written by durable bindings for a body cut off by a crash.
 */
export const interruptedCallMessage =
  'outcome unknown: the session stopped while this call was running, so it may or may not have taken effect; verify before retrying';

/**
 * Resumes a session whose process died: appends to the same log (same
 * session id, `seq` continuing with no gap) one `session/resumed` event, then
 * for every call that has a `tool/call` but no `tool/result` a
 * `tool/interrupted` event and exactly one result. A call of an idempotent
 * tool runs again through the whole pipeline (hooks, rules, guards and
 * approval decide again, and it is logged as a new `tool/call`, in one step
 * whose `step/start` says `rerun`); any other call, a sub-call, or a call of
 * a tool no longer registered ends with `TOOL_INTERRUPTED` and is never run
 * again. Then every step the crash cut (a `step/start` without `step/end`)
 * gets its `step/end`, `interrupted`.
 *
 * `host` must be fresh (nothing logged yet), have the log's session id and its
 * tools registered. Given a path, the host's sink must be `openJsonlSink(path)`,
 * which holds the log's one-writer lock. Given events (`loadSessionLog`'s:
 * its synthetic results are not taken for logged ones) and a JSONL sink, they
 * must be that sink's file's. Throws `RESUME_REFUSED` when any of that is not
 * so, and `INVALID_SESSION_LOG` for a corrupt log; in both cases the log is
 * left exactly as it was. A torn last line is terminated (a newline is
 * appended) and recorded in `session/resumed`, never removed.
 *
 * A resume is itself resumable at every point: killed anywhere, the next
 * resume answers what this one left unanswered, each call exactly once.
 */
export async function resumeSession(host: Host, source: ResumeSource, options: ResumeOptions = {}): Promise<ResumedSession> {
  const rt = runtimeOf(host);
  if (rt === undefined) throw refused('resumeSession needs a host made by createHost');
  if (rt.log.lastSeq !== 0) throw refused(`the host has already logged ${rt.log.lastSeq} events: resume with a fresh host`);
  const { journal, file } = await journalFrom(rt, source);
  if (journal.session !== rt.session) {
    throw refused(`the log belongs to session "${journal.session}" but the host's session is "${rt.session}"`);
  }
  if (file !== undefined && !journal.endsWithNewline) await appendFile(file, '\n');
  rt.log.continueFrom(journal.lastSeq);
  await durable(rt, 'session/resumed', {
    afterSeq: journal.lastSeq,
    interrupted: journal.open.length,
    ...(journal.tornLastLine === undefined ? {} : { tornLine: journal.tornLastLine }),
  });
  const resumed = new Map<OpenCall, ResumedCall>();
  const reruns: OpenCall[] = [];
  for (const open of journal.open) {
    const { data, seq } = open.event;
    const identity = identityOf(open);
    const tool = rt.tools.get(data.name);
    const reason =
      data.parent !== undefined
        ? 'sub-call'
        : tool === undefined
          ? 'unknown-tool'
          : tool.idempotent === true
            ? 'idempotent'
            : 'not-idempotent';
    const resolution = reason === 'idempotent' ? 'rerun' : 'interrupted';
    await durable(rt, 'tool/interrupted', { name: data.name, callSeq: seq, resolution, reason }, identity);
    if (resolution === 'rerun') {
      reruns.push(open);
      continue;
    }
    const outcome = errorOutcome('step', ErrorCode.TOOL_INTERRUPTED, interruptedCallMessage, { data: { callSeq: seq, reason } });
    await durable(rt, 'tool/result', { name: data.name, outcome }, identity);
    record(resumed, open, 'interrupted', outcome);
  }
  let context: ContextMessage | undefined;
  if (reruns.length > 0) {
    const calls = reruns.map((o) => ({ id: identityOf(o).id, name: o.event.data.name, args: argsText(o.event.data.args) }));
    const step = await runStep(rt, { calls }, options.signal === undefined ? undefined : { signal: options.signal }, true);
    for (const [index, open] of reruns.entries()) {
      const result = step.results[index];
      if (result !== undefined) record(resumed, open, 'rerun', result.outcome);
    }
    context = step.context;
  }
  // Only now is every call of a cut step answered: its step ends here.
  for (const { seq, parent } of journal.openSteps) {
    await durable(
      rt,
      'step/end',
      parent === undefined ? { startSeq: seq, end: 'interrupted' } : { startSeq: seq, end: 'interrupted', parent },
    );
  }
  await rt.log.flush();
  const inOrder = journal.calls.filter((c) => c.outcome !== undefined).map(sessionCallOf);
  const resumedInOrder = journal.open
    .flatMap((o) => (o.entry === undefined ? [] : [{ seq: o.entry.seq, call: resumed.get(o) }]))
    .sort((a, b) => a.seq - b.seq)
    .flatMap((r) => (r.call === undefined ? [] : [r.call]));
  return {
    session: journal.session,
    afterSeq: journal.lastSeq,
    tornLine: journal.tornLastLine,
    resumed: resumedInOrder,
    calls: inOrder,
    ...(context === undefined ? {} : { context }),
  };
}

/** The journal to resume, and the JSONL file the resume continues (its torn last line is terminated). */
interface Resumable {
  readonly journal: SessionJournal;
  readonly file: string | undefined;
}

async function journalFrom(rt: Runtime, source: ResumeSource): Promise<Resumable> {
  const sink = rt.log.sink as Partial<LockedJsonlSink> | undefined;
  if (typeof source === 'string') {
    if (sink?.lock?.held !== true || typeof sink.path !== 'string' || resolve(sink.path) !== resolve(source)) {
      throw refused(
        `resuming ${source} needs a host whose sink is openJsonlSink(${JSON.stringify(source)}): ` +
          'it holds the one-writer lock, so no other host appends to the log meanwhile',
      );
    }
    return { journal: await readSessionJournal(source), file: source };
  }
  if (!Array.isArray(source)) throw refused('resumeSession needs the path of a JSONL session log or its events');
  const journal = journalOf(source);
  if (typeof sink?.path !== 'string') return { journal, file: undefined };
  return { journal: await sameAsFile(journal, sink.path), file: sink.path };
}

/**
 * Events resumed into a JSONL sink continue that sink's file: they must be
 * the file's events (its unanswered calls are the ones answered), and the
 * file's torn last line is terminated and recorded as for a path.
 */
async function sameAsFile(journal: SessionJournal, path: string): Promise<SessionJournal> {
  const onDisk = existsSync(path) ? await readSessionJournal(path) : undefined;
  const lastSeq = onDisk?.lastSeq ?? 0;
  const openSeqs = (j: SessionJournal) => j.open.map((o) => o.event.seq).join(',');
  if (onDisk === undefined || lastSeq !== journal.lastSeq || onDisk.session !== journal.session || openSeqs(onDisk) !== openSeqs(journal)) {
    throw refused(
      `the sink's log ${path} ends at seq ${lastSeq} but the events end at seq ${journal.lastSeq}` +
        (lastSeq === journal.lastSeq ? ' with other unanswered calls or another session' : '') +
        ': resume from the events of the log the sink writes (loadSessionLog of that path)',
    );
  }
  return { ...journal, tornLastLine: onDisk.tornLastLine, endsWithNewline: onDisk.endsWithNewline };
}

function identityOf(open: OpenCall): CallIdentity {
  const { event } = open;
  return { id: event.call ?? '', name: event.data.name, token: event.token ?? '' };
}

/** The arguments as JSON text, so a re-run parses them as the model's text was parsed (numbers stay exact). */
function argsText(args: unknown): string {
  return typeof args === 'string' ? args : (stringify(args) ?? 'null');
}

/** Gives a model call its new outcome; sub-calls are answered in the log only. */
function record(resumed: Map<OpenCall, ResumedCall>, open: OpenCall, resolution: ResumedCall['resolution'], outcome: Outcome): void {
  const entry = open.entry;
  if (entry === undefined) return;
  entry.outcome = outcome;
  resumed.set(open, { id: entry.id, name: entry.name, args: entry.args, outcome, resolution });
}

function sessionCallOf(call: JournalCall): SessionCall {
  return { id: call.id, name: call.name, args: call.args, outcome: call.outcome as Outcome };
}

/** Appends an event and waits for the sink: a resume that cannot be recorded stops with the sink's error. */
async function durable<T extends EventType>(rt: Runtime, type: T, data: EventData<T>, call?: CallIdentity): Promise<void> {
  const error = await rt.log.append(type, data, call);
  if (error !== undefined) {
    throw new DshError(ErrorCode.SINK_FAILED, `the resume could not record its ${type} event: ${error.message}`, { cause: error });
  }
}

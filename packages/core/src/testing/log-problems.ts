import type { AnySessionEvent } from '../events.js';

/** What the log has said so far about one call. */
interface CallSeen {
  calls: number;
  results: number;
  requests: number;
  answers: number;
  /** A resume announced that the call runs again (`tool/interrupted` rerun) and its new `tool/call` has not come. */
  rerun: boolean;
}

/**
 * Checks a session log against the contract's invariants and lists every
 * violation (an empty list means the log is well formed): `seq` rises by one;
 * each call has one `tool/call` then exactly one `tool/result`; an
 * `approval/request` is answered by one `approval/answer`, both between the
 * call's `tool/call` and its `tool/result`, before any event of its body; a `tool/late-settlement` comes
 * after its `tool/result`; a step's `context/message` comes after the results
 * it gathers; a `tool/interrupted` (from `resumeSession`) comes between a
 * call's `tool/call` and its result, and one that re-runs the call stands
 * for its result once the new `tool/call` (same id, new token) is logged; a
 * later resume may announce it again, or end it with its own result. A
 * `step/end` ends one open `step/start`, and when it ended `completed` or
 * `aborted`, the result of every call the step lists comes before it; a step
 * still open where the list ends (running, or cut by a crash) is not a problem. A list that starts after seq 1 (older events dropped from
 * memory, see `host.events.dropped()`) is checked from where it starts: calls
 * whose `tool/call` was dropped are not reported, nor the end of a dropped step.
 */
export function logProblems(events: readonly AnySessionEvent[]): string[] {
  const problems: string[] = [];
  const calls = new Map<string, CallSeen>();
  const reruns = new Map<string, CallSeen>();
  const truncated = (events[0]?.seq ?? 1) > 1;
  const steps = new StepChecks(truncated ? (events[0]?.seq ?? 1) : 1, problems);
  const seenOf = (event: AnySessionEvent): CallSeen | undefined => {
    const key = `${event.token}/${event.call}`;
    let seen = calls.get(key);
    if (seen === undefined) {
      if (event.type !== 'tool/call' && truncated) return undefined;
      seen = { calls: 0, results: 0, requests: 0, answers: 0, rerun: false };
      calls.set(key, seen);
    }
    return seen;
  };
  for (const [index, event] of events.entries()) {
    const previous = events[index - 1];
    if (previous !== undefined && event.seq !== previous.seq + 1) {
      problems.push(`seq ${event.seq} follows ${previous.seq}`);
    }
    const seen = event.call === undefined ? undefined : seenOf(event);
    if (event.type === 'tool/call' && event.call !== undefined) {
      // The new tool/call of a call a resume runs again answers the old one.
      const rerun = reruns.get(event.call);
      reruns.delete(event.call);
      if (rerun?.rerun === true) {
        rerun.rerun = false;
        rerun.results += 1;
      }
    }
    if (seen !== undefined) checkCallEvent(event, seen, problems);
    steps.see(event);
    if (seen?.rerun === true && event.call !== undefined) reruns.set(event.call, seen);
    if (event.type === 'context/message') {
      for (const part of event.data.parts) {
        const open = [...calls.entries()].find(([key, v]) => key.endsWith(`/${part.call}`) && v.results === 0);
        if (open !== undefined) problems.push(`context/message at seq ${event.seq} comes before the result of ${part.call}`);
      }
    }
  }
  for (const [key, seen] of calls) {
    const call = `call ${key.split('/').slice(1).join('/')}`;
    if (seen.rerun) problems.push(`${call} has no tool/result: its re-run was announced but never logged`);
    else if (seen.results === 0) problems.push(`${call} has no tool/result`);
  }
  return problems;
}

function checkCallEvent(event: AnySessionEvent, seen: CallSeen, problems: string[]): void {
  const call = `call ${event.call}`;
  switch (event.type) {
    case 'tool/call':
      seen.calls += 1;
      if (seen.calls > 1) problems.push(`${call} has more than one tool/call event`);
      return;
    case 'tool/result':
      seen.results += 1;
      if (seen.calls === 0) problems.push(`${call} has a tool/result before its tool/call`);
      if (seen.results > 1) problems.push(`${call} has more than one tool/result event`);
      if (seen.requests > seen.answers) problems.push(`${call} has an approval/request without an approval/answer`);
      return;
    case 'approval/request':
      if (seen.calls === 0) problems.push(`${call} has an approval/request before its tool/call`);
      if (seen.results > 0) problems.push(`${call} has an approval/request after its tool/result`);
      seen.requests += 1;
      return;
    case 'approval/answer':
      if (seen.answers >= seen.requests) {
        problems.push(`${call} has an approval/answer without an approval/request before it`);
        return;
      }
      seen.answers += 1;
      if (seen.results > 0) problems.push(`${call} has an approval/answer after its tool/result`);
      return;
    case 'tool/interrupted':
      if (seen.calls === 0) problems.push(`${call} has a tool/interrupted before its tool/call`);
      if (seen.results > 0) problems.push(`${call} has a tool/interrupted after its tool/result`);
      // A re-run call continues under a new token: its new tool/call and tool/result answer it.
      seen.rerun = event.data.resolution === 'rerun';
      return;
    case 'tool/late-settlement':
      if (seen.results === 0) problems.push(`${call} has a tool/late-settlement before its tool/result`);
      return;
    case 'tool/code-dispatch':
    case 'fs/observed':
    case 'todo/write':
      // Only a running body logs these: never while its approval is still unanswered.
      if (seen.requests > seen.answers) problems.push(`${call} has a ${event.type} event (from its body) before its approval/answer`);
      return;
    default:
      return;
  }
}

/** The open steps of a log: the calls each still waits for, and whether it has ended. */
class StepChecks {
  readonly #open = new Map<number, Set<string>>();

  constructor(
    private readonly firstSeq: number,
    private readonly problems: string[],
  ) {}

  see(event: AnySessionEvent): void {
    if (event.type === 'step/start') {
      this.#open.set(event.seq, new Set(event.data.calls));
    } else if (event.type === 'tool/result' && event.call !== undefined && event.data.synthetic !== true) {
      // The newest open step that waits for the id: a resume's re-run step answers a call of the step a crash cut.
      for (const waiting of [...this.#open.values()].reverse()) if (waiting.delete(event.call)) return;
    } else if (event.type === 'step/end') {
      const { startSeq, end } = event.data;
      const waiting = this.#open.get(startSeq);
      this.#open.delete(startSeq);
      if (waiting === undefined) {
        if (startSeq >= this.firstSeq) this.problems.push(`step/end at seq ${event.seq} names no open step/start (seq ${startSeq})`);
        return;
      }
      if ((end === 'completed' || end === 'aborted') && waiting.size > 0) {
        this.problems.push(`step/end at seq ${event.seq} comes before the result of ${[...waiting].join(', ')}`);
      }
    }
  }
}

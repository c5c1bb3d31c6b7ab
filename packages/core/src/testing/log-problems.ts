import type { AnySessionEvent } from '../events.js';

/**
 * Checks a session log against the contract's invariants and lists every
 * violation (an empty list means the log is well formed): `seq` rises by one,
 * each call has one `tool/call` then exactly one `tool/result`, and a step's
 * `context/message` comes after the results it gathers.
 */
export function logProblems(events: readonly AnySessionEvent[]): string[] {
  const problems: string[] = [];
  const calls = new Map<string, { calls: number; results: number }>();
  for (const [index, event] of events.entries()) {
    const previous = events[index - 1];
    if (previous !== undefined && event.seq !== previous.seq + 1) {
      problems.push(`seq ${event.seq} follows ${previous.seq}`);
    }
    if (event.type === 'tool/call' || event.type === 'tool/result') {
      const key = `${event.token}/${event.call}`;
      const seen = calls.get(key) ?? { calls: 0, results: 0 };
      if (event.type === 'tool/call') {
        seen.calls += 1;
        if (seen.calls > 1) problems.push(`call ${event.call} has more than one tool/call event`);
      } else {
        seen.results += 1;
        if (seen.calls === 0) problems.push(`call ${event.call} has a tool/result before its tool/call`);
        if (seen.results > 1) problems.push(`call ${event.call} has more than one tool/result event`);
      }
      calls.set(key, seen);
    }
    if (event.type === 'context/message') {
      for (const part of event.data.parts) {
        const open = [...calls.entries()].find(([key, v]) => key.endsWith(`/${part.call}`) && v.results === 0);
        if (open !== undefined) problems.push(`context/message at seq ${event.seq} comes before the result of ${part.call}`);
      }
    }
  }
  for (const [key, seen] of calls) {
    if (seen.results === 0) problems.push(`call ${key.split('/').slice(1).join('/')} has no tool/result`);
  }
  return problems;
}

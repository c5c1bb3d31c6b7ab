import type { Answerer, AnswerInput, StandingAnswer } from './answer.js';
import { InboxError, InboxErrorCode } from './errors.js';
import type { InboxEvent } from './session-store.js';

/** What a target did with an answer: it counts (`delivered` to the waiting call, or `kept` for it), or an earlier one stands. */
export interface AnswerDelivery {
  readonly status: 'delivered' | 'kept' | 'already-answered';
}

/**
 * Where the answers to a folder's sessions go when the session runs
 * elsewhere (a durable engine's worker): "deliver this decision for session
 * S, call C". The engine keeps the first answer; a later one is
 * `already-answered`. A target takes `allow-once` and `deny`: an engine's
 * approval remembers no grant, so the inbox refuses `allow-always` first.
 */
export interface AnswerTarget {
  /** A name for the page and errors, such as `restate at http://127.0.0.1:8080`. */
  readonly label: string;
  deliver(session: string, call: string, decision: 'allow' | 'deny', message: string | undefined, who: Answerer): Promise<AnswerDelivery>;
}

/** The engine word of a page decision, or the refusal of one the engine cannot take. */
export function targetDecision(input: AnswerInput, target: AnswerTarget): 'allow' | 'deny' {
  if (input.decision === 'deny') return 'deny';
  if (input.decision === 'allow-once') return 'allow';
  throw new InboxError(
    InboxErrorCode.CANNOT_REMEMBER,
    `allow always is not offered here: ${target.label} answers one call at a time (allow once or deny)`,
  );
}

const decisionOf: Readonly<Record<string, StandingAnswer['decision']>> = {
  'allowed-once': 'allow-once',
  allowed: 'allow-always',
};

/** The answer a session's log shows for `call` (its `approval/answer`), as the inbox reports a standing one. */
export function loggedAnswer(events: readonly InboxEvent[], call: string): StandingAnswer | undefined {
  const answer = events.findLast((e) => e.call === call && e.type === 'approval/answer');
  if (answer === undefined) return undefined;
  const data = answer.data as { answer?: string; source?: string; message?: string };
  return {
    decision: decisionOf[data.answer ?? ''] ?? 'deny',
    ...(data.message === undefined ? {} : { message: data.message }),
    by: data.source === 'timeout' ? 'the deadline' : 'another answerer',
    from: 'the session log',
    at: answer.at,
  };
}

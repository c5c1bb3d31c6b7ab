import { type Host, messageOf, type ParentCall } from '@deepseek-ai/dsh-core';
import { AgentErrorCode } from '../errors.js';
import { AGENT_MODEL_ERROR_EVENT, type AgentModelErrorEventData } from '../events.js';
import type { AssistantTurn, Model, ModelCallOptions, ModelRequest } from '../model.js';
import { describeModelError, type ModelErrorDetail, type ModelFailure } from '../model-error.js';
import { type RetryPolicy, retryDelay, sleep } from '../retry.js';
import { turnProblem } from './turn-check.js';

/** The outcome of asking for one turn: the turn, the signal, or the failure that ended the retries. */
export type TurnAnswer =
  | { readonly kind: 'turn'; readonly turn: AssistantTurn; readonly attempts: number }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'failed'; readonly failure: ModelFailure };

/** What one turn's request needs. */
export interface TurnRequest {
  readonly host: Host;
  readonly model: Model;
  readonly request: ModelRequest;
  readonly options: ModelCallOptions;
  readonly policy: RetryPolicy;
  readonly turn: number;
  readonly parent: ParentCall | undefined;
}

/**
 * Asks the model for one turn, retrying what the policy allows; every failed
 * attempt is logged as an `agent/model-error` event before its wait. A
 * malformed turn is not retried: the same request would get the same answer.
 */
export async function requestTurn(r: TurnRequest): Promise<TurnAnswer> {
  const signal = r.options.signal;
  for (let attempt = 1; ; attempt++) {
    let turn: AssistantTurn;
    try {
      turn = await r.model(r.request, r.options);
    } catch (error) {
      if (signal?.aborted) return { kind: 'aborted' };
      const detail = describeModelError(error);
      const wait = retryDelay(r.policy, attempt, detail);
      await logFailure(r, attempt, detail, wait);
      if (wait === undefined) return { kind: 'failed', failure: { code: AgentErrorCode.MODEL_FAILED, ...detail, attempts: attempt } };
      if (!(await sleep(wait, signal))) return { kind: 'aborted' };
      continue;
    }
    const problem = turnProblem(turn);
    if (problem === undefined) return { kind: 'turn', turn, attempts: attempt };
    const detail = { message: `the model's turn is malformed: ${problem}`, retryable: false };
    await logFailure(r, attempt, detail, undefined);
    return { kind: 'failed', failure: { code: AgentErrorCode.MODEL_FAILED, ...detail, attempts: attempt } };
  }
}

async function logFailure(r: TurnRequest, attempt: number, detail: ModelErrorDetail, wait: number | undefined): Promise<void> {
  const data: AgentModelErrorEventData = {
    turn: r.turn,
    attempt,
    ...detail,
    ...(wait === undefined ? {} : { retryInMs: wait }),
    ...(r.parent === undefined ? {} : { parent: r.parent.id }),
  };
  try {
    await r.host.events.emit(AGENT_MODEL_ERROR_EVENT, data);
  } catch (error) {
    r.host.diagnostics.record('AGENT_TURN_NOT_LOGGED', 'agent', messageOf(error));
  }
}

import { type CallResult, type Host, messageOf, type ParentCall, type StepOptions, type StepResult } from '@deepseek-ai/dsh-core';
import { AgentError, AgentErrorCode } from './errors.js';
import { AGENT_TURN_EVENT, type AgentTurnEventData, defineAgentEvents } from './events.js';
import { CallIds } from './internal/call-ids.js';
import { narrowStep } from './internal/offer-gate.js';
import { prepareRequest, selectTools } from './internal/prepare-request.js';
import { requestTurn } from './internal/request-turn.js';
import { addUsage } from './internal/turn-check.js';
import type { AgentMessage, AssistantMessage, ToolResultEntry, ToolResultsMessage } from './messages.js';
import type { AssistantTurn, ModelCallOptions, Usage } from './model.js';
import type { ModelFailure } from './model-error.js';
import { checkRunAgentOptions, type RunAgentOptions } from './options.js';
import { resultEntry } from './result-text.js';
import { retryPolicy } from './retry.js';

/**
 * Why a run ended.
 * - `end`: the model answered without tool calls.
 * - `max-turns`: `maxTurns` model turns were taken; the last calls were answered.
 * - `aborted`: the signal fired (during a request, a retry's wait or the calls); every started call was answered.
 * - `refusal`: the model refused.
 * - `max-tokens`: the model's last turn was cut off at its token limit and asked for no tool.
 * - `empty-turn`: the model answered with neither text nor tool calls (not added to the history).
 * - `model-error`: the model request failed (after the retries the policy allows), or its turn was malformed; see `error`.
 * - `hook-error`: the `beforeRequest` hook threw or returned invalid changes; see `error`.
 */
export type AgentStop = 'end' | 'max-turns' | 'aborted' | 'refusal' | 'max-tokens' | 'empty-turn' | 'model-error' | 'hook-error';

/** Why a `beforeRequest` hook ended the run. */
export interface HookFailure {
  readonly code: typeof AgentErrorCode.HOOK_FAILED;
  readonly message: string;
}

/** What every {@link AgentResult} holds. */
export interface AgentResultFields {
  /** The whole history: the messages passed in (or a `beforeRequest` replacement), then every new turn and its results. */
  readonly messages: readonly AgentMessage[];
  /** Model turns taken. */
  readonly turns: number;
  /** The text of the last assistant turn (`''` when none). */
  readonly text: string;
  /** Tokens of every turn, summed. */
  readonly usage: Usage;
}

/**
 * What {@link runAgent} resolves with. The history is always valid for the
 * provider: no call lacks its result. `error` is present exactly when the
 * run ended on a failure, and typed by `stop`.
 */
export type AgentResult = AgentResultFields &
  (
    | { readonly stop: 'model-error'; readonly error: ModelFailure }
    | { readonly stop: 'hook-error'; readonly error: HookFailure }
    | { readonly stop: Exclude<AgentStop, 'model-error' | 'hook-error'>; readonly error?: undefined }
  );

const defaultMaxTurns = 50;

/**
 * Runs the loop: a model turn, its tool calls through `host.runStep`, one
 * result per call (denials and errors included) and the step's context
 * after them, then the next turn, until the model stops, `maxTurns` or the
 * signal. Failed requests are retried by the `retry` policy. Logs an
 * `agent/turn` event per turn and an `agent/model-error` event per failed request.
 *
 * It rejects only before the first request, on invalid options or history
 * (`INVALID_OPTIONS`, `AGENT_INVALID_HISTORY`); once running, every end is a
 * result, failures included (`stop: 'model-error'` or `'hook-error'` with `error`).
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  checkRunAgentOptions(options);
  const { host, model, parent } = options;
  defineAgentEvents(host);
  const maxTurns = options.maxTurns ?? defaultMaxTurns;
  const policy = retryPolicy(options.retry);
  const signal = joinSignals(options.signal, parent?.signal);
  const prefix = options.callIdPrefix ?? (parent === undefined ? undefined : `${parent.id}:agent:`);
  const ids = new CallIds(prefix);
  // Checked up front: a tools list naming no registered tool is bad options, not a failure later.
  selectTools(host, options.tools, options.toolChoice, (message) => new AgentError(AgentErrorCode.INVALID_OPTIONS, `runAgent: ${message}`));
  let history: AgentMessage[] = [...options.messages];
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let turns = 0;
  let text = '';
  const append = (message: AgentMessage): void => {
    history.push(message);
    options.onMessage?.(message);
  };
  const fields = (): AgentResultFields => ({ messages: history, turns, text, usage });
  const finish = (stop: Exclude<AgentStop, 'model-error' | 'hook-error'>): AgentResult => ({ stop, ...fields() });
  const callOptions: ModelCallOptions = {
    ...(signal === undefined ? {} : { signal }),
    ...(options.onText === undefined ? {} : { onText: options.onText }),
    ...(options.onReasoning === undefined ? {} : { onReasoning: options.onReasoning }),
  };

  for (;;) {
    if (signal?.aborted) return finish('aborted');
    if (turns >= maxTurns) return finish('max-turns');
    const prepared = await prepareRequest(options, history, turns + 1);
    if (prepared.kind === 'failed') return { stop: 'hook-error', error: prepared.failure, ...fields() };
    history = prepared.history;
    const answer = await requestTurn({ host, model, request: prepared.request, options: callOptions, policy, turn: turns + 1, parent });
    if (answer.kind === 'aborted') return finish('aborted');
    if (answer.kind === 'failed') return { stop: 'model-error', error: answer.failure, ...fields() };
    const { turn } = answer;
    turns += 1;
    if (turn.usage !== undefined) usage = addUsage(usage, turn.usage);
    const callIds = ids.forTurn(turn.calls);
    await logTurn(host, turns, turn, callIds, parent, answer.attempts);
    if (turn.text === '' && turn.calls.length === 0) {
      // Nothing to add: an empty assistant message is itself invalid for most providers.
      return finish(turn.stop === 'refusal' ? 'refusal' : turn.stop === 'max-tokens' ? 'max-tokens' : 'empty-turn');
    }
    text = turn.text;
    append(assistantMessage(turn));
    if (turn.calls.length === 0) {
      return finish(turn.stop === 'refusal' ? 'refusal' : turn.stop === 'max-tokens' ? 'max-tokens' : 'end');
    }
    // A truncated turn's calls still run: a complete call is valid, a cut-off one gets INVALID_ARGS from core.
    const release = prepared.callable === undefined ? undefined : narrowStep(host, callIds, prepared.callable);
    let step: StepResult;
    try {
      step = await runCalls(host, turn, callIds, signal, parent);
    } finally {
      release?.();
    }
    append(resultsMessage(turn, step));
    if (signal?.aborted) return finish('aborted');
  }
}

function assistantMessage(turn: AssistantTurn): AssistantMessage {
  const message: AssistantMessage = { role: 'assistant', text: turn.text, calls: turn.calls, stop: turn.stop };
  return {
    ...message,
    ...(turn.usage === undefined ? {} : { usage: turn.usage }),
    ...(turn.reasoning === undefined ? {} : { reasoning: turn.reasoning }),
    ...(turn.provider === undefined ? {} : { provider: turn.provider }),
  };
}

async function runCalls(
  host: Host,
  turn: AssistantTurn,
  callIds: readonly string[],
  signal: AbortSignal | undefined,
  parent: ParentCall | undefined,
): Promise<StepResult> {
  // With a parent, every call carries its token and follows its signal (a subagent's calls).
  const options: StepOptions = {
    ...(signal === undefined ? {} : { signal }),
    ...(parent === undefined ? {} : { parent }),
  };
  const calls = turn.calls.map((call, i) => ({ id: callIds[i] as string, name: call.name, args: call.args }));
  return host.runStep({ calls }, options);
}

/** One result per call, in the model's order, under the provider's ids; a call the step did not answer gets an error. */
function resultsMessage(turn: AssistantTurn, step: StepResult): ToolResultsMessage {
  const results: ToolResultEntry[] = turn.calls.map((call, i) => {
    const result: CallResult | undefined = step.results[i];
    if (result !== undefined) return resultEntry(call.id, result);
    const why = step.error === undefined ? 'the pipeline gave no result for this call' : `${step.error.code}: ${step.error.message}`;
    return {
      id: call.id,
      name: call.name,
      status: 'error',
      content: `Error (${step.error?.code ?? 'TOOL_FAILED'}): ${why}`,
      isError: true,
    };
  });
  return step.context === undefined ? { role: 'tool', results } : { role: 'tool', results, context: step.context.text };
}

async function logTurn(
  host: Host,
  n: number,
  turn: AssistantTurn,
  callIds: readonly string[],
  parent: ParentCall | undefined,
  attempts: number,
): Promise<void> {
  const data: AgentTurnEventData = {
    turn: n,
    stop: turn.stop,
    text: turn.text,
    calls: turn.calls.map((call, i) => ({ id: call.id, callId: callIds[i] as string, name: call.name })),
    ...(turn.model === undefined ? {} : { model: turn.model }),
    ...(turn.providerStop === undefined ? {} : { providerStop: turn.providerStop }),
    ...(turn.usage === undefined ? {} : { usage: turn.usage }),
    ...(attempts > 1 ? { attempts } : {}),
    ...(parent === undefined ? {} : { parent: parent.id }),
  };
  try {
    await host.events.emit(AGENT_TURN_EVENT, data);
  } catch (error) {
    // The log could not take the turn; the calls themselves are still logged by core.
    host.diagnostics.record('AGENT_TURN_NOT_LOGGED', 'agent', messageOf(error));
  }
}

function joinSignals(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return AbortSignal.any([a, b]);
}

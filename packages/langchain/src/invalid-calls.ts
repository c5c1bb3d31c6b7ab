import { AIMessage } from '@langchain/core/messages';
import type { BridgeState } from './bridge-state.js';
import { LangChainErrorCode } from './errors.js';

/** A call LangChain refused: the arguments as the model sent them, and LangChain's reason. */
export interface RefusedCall {
  readonly args: string;
  readonly error: string;
}

/**
 * Turns the calls LangChain refused (an AI message's `invalid_tool_calls`,
 * whose arguments it could not parse) into tool calls the agent's tool node
 * runs, so each reaches the middleware and gets its one `tool/call` and
 * `tool/result`: the bridge runs it with the arguments as the model sent them
 * (core answers `INVALID_ARGS` or `UNKNOWN_TOOL`), the model reads the coded
 * error, and the loop goes on. `createAgent` drops such calls: without this the
 * model never hears of them, and when the message has no other call the run
 * ends. Done in `wrapModelCall`, inside the model's node: a hook of its own
 * (`afterModel`) would add a graph step to every model turn.
 */
export function admitInvalidCalls(state: BridgeState, response: unknown): unknown {
  if (!AIMessage.isInstance(response)) return response;
  const invalid = response.invalid_tool_calls ?? [];
  if (invalid.length === 0) return response;
  // A call without an id cannot be logged or answered: the model could not match the answer.
  const admitted = invalid.filter((call) => typeof call.id === 'string' && call.id !== '');
  if (admitted.length === 0) return response;
  for (const call of admitted) {
    state.refuseRefusedCalls();
    state.refused.set(call.id as string, { args: call.args ?? '', error: call.error ?? 'its arguments are not valid JSON' });
  }
  const calls = admitted.map((call) => ({ type: 'tool_call' as const, id: call.id as string, name: call.name ?? '', args: {} }));
  return new AIMessage({
    content: response.content,
    additional_kwargs: response.additional_kwargs,
    response_metadata: response.response_metadata,
    ...(response.id === undefined ? {} : { id: response.id }),
    ...(response.name === undefined ? {} : { name: response.name }),
    ...(response.usage_metadata === undefined ? {} : { usage_metadata: response.usage_metadata }),
    tool_calls: [...(response.tool_calls ?? []), ...calls],
    invalid_tool_calls: invalid.filter((call) => !admitted.includes(call)),
  });
}

/** The denial reason of a refused call whose arguments dsh could parse: LangChain refused it, so it never runs. */
export function refusedReason(error: string): string {
  return `${LangChainErrorCode.INVALID_TOOL_CALL}: LangChain refused this call (${error}); it does not run`;
}

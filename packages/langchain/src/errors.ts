import { DshError } from '@deepseek-ai/dsh-core';

/**
 * Stable codes of the LangChain adapter. `INVALID_OPTIONS` and `UNKNOWN_TOOL`
 * are thrown at setup (never a model's doing); the others are the code a
 * call's tool message carries, which the model reads as the tool's result.
 */
export const LangChainErrorCode = {
  /** An option of `langchainBridge`, `middleware` or `tools` is invalid; the message names the field. */
  INVALID_OPTIONS: 'LANGCHAIN_INVALID_OPTIONS',
  /** `tools({ include })` (or `exclude`) names a tool the host does not have. */
  UNKNOWN_TOOL: 'LANGCHAIN_UNKNOWN_TOOL',
  /** The same `langchainApprovals()` was given to a second `langchainBridge`. */
  APPROVALS_IN_USE: 'LANGCHAIN_APPROVALS_IN_USE',
  /** Tool message: a LangChain tool has the name of a different tool the host already has; nothing ran. */
  TOOL_NAME_TAKEN: 'LANGCHAIN_TOOL_NAME_TAKEN',
  /** Tool message: the model's tool call has no id, so it cannot be logged, approved or resumed; nothing ran. */
  MISSING_TOOL_CALL_ID: 'LANGCHAIN_MISSING_TOOL_CALL_ID',
  /** Denial reason: the value the graph was resumed with is not an approval decision; the call is denied (fail closed). */
  INVALID_RESUME: 'LANGCHAIN_INVALID_RESUME',
  /** Denial reason: dsh asked about a call that no LangGraph run is executing and no `fallback` provider was given. */
  APPROVAL_OUTSIDE_GRAPH: 'LANGCHAIN_APPROVAL_OUTSIDE_GRAPH',
  /** Denial reason: LangChain refused the call (`invalid_tool_calls`) but dsh could parse its arguments; it does not run. */
  INVALID_TOOL_CALL: 'LANGCHAIN_INVALID_TOOL_CALL',
  /** Denial reason: `cancelPending()` ended a call that was waiting for a person. */
  APPROVAL_CANCELLED: 'LANGCHAIN_APPROVAL_CANCELLED',
} as const;

/** One of {@link LangChainErrorCode}'s values. */
export type LangChainErrorCode = (typeof LangChainErrorCode)[keyof typeof LangChainErrorCode];

/** An error the adapter throws at setup, with a stable `code`. */
export class LangChainBridgeError extends DshError {
  /** Throws with `code` and a message for the integrator. */
  constructor(code: LangChainErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'LangChainBridgeError';
  }
}

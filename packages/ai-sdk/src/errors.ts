import { DshError } from '@deepseek-ai/dsh-core';

/**
 * Stable codes of the AI SDK adapter. `INVALID_OPTIONS` and the `TOOL_*`
 * codes are thrown by `aiSdkBridge` and `bridge.tools()` (bad setup, never a model's doing);
 * the others are the `error.code` of a call's outcome, which the model reads
 * as the tool's result.
 */
export const AiSdkErrorCode = {
  /** An option of `aiSdkBridge`, `tools()`, `dshTools` or `aiSdkApprovals` is invalid; the message names the field. */
  INVALID_OPTIONS: 'AI_SDK_INVALID_OPTIONS',
  /** `tools({ include })` (or `exclude`) names a tool the host does not have. */
  UNKNOWN_TOOL: 'AI_SDK_UNKNOWN_TOOL',
  /** A framework tool has the name of a tool the host already has. */
  TOOL_NAME_TAKEN: 'AI_SDK_TOOL_NAME_TAKEN',
  /** A framework tool has no `execute` (a client-side or provider-executed tool): there is no body to run through the pipeline. */
  TOOL_WITHOUT_EXECUTE: 'AI_SDK_TOOL_WITHOUT_EXECUTE',
  /**
   * No longer thrown: a framework tool's own `needsApproval` is honoured as an
   * `ask` that no pre-execute tap can lower.
   * @deprecated Kept so code that names it still compiles.
   */
  TOOL_HAS_OWN_APPROVAL: 'AI_SDK_TOOL_HAS_OWN_APPROVAL',
  /** The same `aiSdkApprovals()` object was given to a second bridge. */
  APPROVALS_IN_USE: 'AI_SDK_APPROVALS_IN_USE',
  /**
   * Outcome: the SDK passed the call's approval stage but never asked for its
   * execution (the model stopped for another reason, a later step began, the
   * hold deadline passed, or `abandon()` was called). The body never ran.
   */
  NOT_EXECUTED: 'AI_SDK_NOT_EXECUTED',
  /**
   * Thrown by `repairToolCall` for a call the SDK refused (unparsable JSON, a
   * tool it does not have, input its schema check rejects) once dsh has logged
   * it: the message is dsh's outcome text, which the SDK gives the model as the call's error.
   */
  CALL_REFUSED: 'AI_SDK_CALL_REFUSED',
  /** Approval answer: dsh asked about a call the SDK cannot put to the user (not one of its tool calls) and no `fallback` was given. */
  APPROVAL_OUTSIDE_SDK: 'AI_SDK_APPROVAL_OUTSIDE_SDK',
} as const;

/** One of {@link AiSdkErrorCode}'s values. */
export type AiSdkErrorCode = (typeof AiSdkErrorCode)[keyof typeof AiSdkErrorCode];

/** An error the adapter throws at setup, with a stable `code`. */
export class AiSdkError extends DshError {
  /** Throws with `code` and a message for the integrator. */
  constructor(code: AiSdkErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'AiSdkError';
  }
}

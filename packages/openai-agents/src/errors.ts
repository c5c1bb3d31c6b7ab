import { DshError } from '@deepseek-ai/dsh-core';

/**
 * Stable codes of the OpenAI Agents bridge. Each is the `code` of a
 * {@link AgentsBridgeError} the bridge throws to the integrator's code (never
 * to the model: the model reads outcomes, whose codes are core's).
 */
export const AgentsErrorCode = {
  /**
   * `openaiAgents`, `tools` or `fileDecisionStore` got options it cannot use (the message names the field),
   * or `settle`/`describe` ran before any host was bound. Its value was `'INVALID_OPTIONS'` before 0.2.
   */
  INVALID_OPTIONS: 'AGENTS_INVALID_OPTIONS',
  /** `tools({ include })` (or `exclude`, or the deprecated `names`) named a tool the host does not have. */
  UNKNOWN_TOOL: 'AGENTS_UNKNOWN_TOOL',
  /** A bridge already serves another host: one bridge is one session. */
  HOST_MISMATCH: 'AGENTS_HOST_MISMATCH',
  /** `wrap` got a tool that is not a function tool (hosted, computer, shell tools run elsewhere). */
  TOOL_NOT_WRAPPABLE: 'AGENTS_TOOL_NOT_WRAPPABLE',
  /** The same `openaiAgentsApprovals()` was given to a second `openaiAgentsBridge`. */
  APPROVALS_IN_USE: 'AGENTS_APPROVALS_IN_USE',
  /** The decision store could not read or write a record, or holds one that is not a decision. */
  STORE_FAILED: 'AGENTS_STORE_FAILED',
} as const;

/** One of the bridge's stable codes. */
export type AgentsErrorCode = (typeof AgentsErrorCode)[keyof typeof AgentsErrorCode];

/** An error of the bridge, with a stable {@link AgentsErrorCode}. */
export class AgentsBridgeError extends DshError {
  declare readonly code: AgentsErrorCode;

  constructor(code: AgentsErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'AgentsBridgeError';
  }
}

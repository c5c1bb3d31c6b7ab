import { DshError } from '@deepseek-ai/dsh-core';

/** Stable error codes of the agent package; each is listed in the README. */
export const AgentErrorCode = {
  /** `runAgent` or an adapter got invalid options; the message names the field. */
  INVALID_OPTIONS: 'INVALID_OPTIONS',
  /** The history handed to `runAgent` leaves a tool call without its result, or answers no call. */
  INVALID_HISTORY: 'AGENT_INVALID_HISTORY',
  /** The model request failed (network, HTTP status, a malformed response); in `AgentResult.error`. */
  MODEL_FAILED: 'AGENT_MODEL_FAILED',
  /** A model call named a tool that was not offered for its turn (`tools`, `toolChoice`); in the call's denial. */
  TOOL_NOT_OFFERED: 'AGENT_TOOL_NOT_OFFERED',
  /** A `beforeRequest` hook threw or returned changes that are invalid; in `AgentResult.error`. */
  HOOK_FAILED: 'AGENT_HOOK_FAILED',
  /** `connectModel` was asked for a provider whose official SDK is not installed. */
  SDK_MISSING: 'AGENT_SDK_MISSING',
  /** `connectModel` found no API key in its options or the environment. */
  API_KEY_MISSING: 'AGENT_API_KEY_MISSING',
  /** `historyFromSession` found a call of a logged turn with no logged result: resume the session first. */
  SESSION_UNANSWERED: 'AGENT_SESSION_UNANSWERED',
} as const;

/** One of the agent package's stable error codes. */
export type AgentErrorCode = (typeof AgentErrorCode)[keyof typeof AgentErrorCode];

/** An error of the agent package: a `DshError` with one of {@link AgentErrorCode}'s codes. */
export class AgentError extends DshError {
  constructor(code: AgentErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'AgentError';
  }
}

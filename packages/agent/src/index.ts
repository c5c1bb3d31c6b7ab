/**
 * The model loop for dsh: one model seam ({@link Model}), {@link runAgent}
 * which drives a model and `host.runStep` turn by turn, and the `agent/turn`
 * session event. Provider adapters live in subpath exports
 * (`@deepseek-ai/dsh-agent/openai-chat`, `/openai-responses`, `/anthropic`,
 * `/gemini`, `/connect`), so this entry imports no provider SDK.
 *
 * @packageDocumentation
 */
export {
  type BeforeRequest,
  type CompactHistoryOptions,
  compactHistory,
  estimateTokens,
  mediaPartTokens,
  type RequestChanges,
  type RequestDraft,
} from './before-request.js';
export { type MediaSupport, partsText, placeholderOf } from './content.js';
export { AgentError, AgentErrorCode } from './errors.js';
export {
  AGENT_MODEL_ERROR_EVENT,
  AGENT_TURN_EVENT,
  type AgentModelErrorEventData,
  type AgentTurnEventData,
  agentModelErrorEvent,
  agentTurnEvent,
  defineAgentEvents,
} from './events.js';
export type {
  AgentMessage,
  AssistantMessage,
  ProviderData,
  ToolResultEntry,
  ToolResultStatus,
  ToolResultsMessage,
  UserMessage,
} from './messages.js';
export type {
  AssistantTurn,
  JsonValue,
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelToolCall,
  StopReason,
  SystemPrompt,
  Usage,
} from './model.js';
export { describeModelError, type ModelErrorDetail, type ModelFailure } from './model-error.js';
export { checkHistory, type RunAgentOptions } from './options.js';
export { agent, agentPluginName } from './plugin.js';
export { jsonText, outcomeText, resultEntry } from './result-text.js';
export { type RetryOptions, type RetryPolicy, retryDelay, retryPolicy } from './retry.js';
export { type AgentResult, type AgentResultFields, type AgentStop, type HookFailure, runAgent } from './run-agent.js';
export { historyFromSession, type SessionHistoryOptions } from './session-history.js';
export type { ToolChoice, ToolSelection } from './tool-choice.js';
export { version as agentVersion } from './version.js';

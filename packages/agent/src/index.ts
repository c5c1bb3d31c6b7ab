/**
 * The model loop for dsh: one model seam ({@link Model}), {@link runAgent}
 * which drives a model and `host.runStep` turn by turn, and the `agent/turn`
 * session event. Provider adapters live in subpath exports
 * (`@deepseek-ai/dsh-agent/openai-chat`, `/openai-responses`, `/anthropic`,
 * `/gemini`, `/connect`), so this entry imports no provider SDK.
 *
 * @packageDocumentation
 */
export { AgentError, AgentErrorCode } from './errors.js';
export { AGENT_TURN_EVENT, type AgentTurnEventData, agentTurnEvent, defineAgentEvents } from './events.js';
export type {
  AgentMessage,
  AssistantMessage,
  ProviderData,
  ToolResultEntry,
  ToolResultStatus,
  ToolResultsMessage,
  UserMessage,
} from './messages.js';
export type { AssistantTurn, JsonValue, Model, ModelCallOptions, ModelRequest, ModelToolCall, StopReason, Usage } from './model.js';
export { checkHistory, type RunAgentOptions } from './options.js';
export { agent, agentPluginName } from './plugin.js';
export { jsonText, outcomeText, resultEntry } from './result-text.js';
export { type AgentResult, type AgentStop, runAgent } from './run-agent.js';
export { version as agentVersion } from './version.js';

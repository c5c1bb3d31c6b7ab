/**
 * dsh as the tool layer of the OpenAI Agents SDK (JS): function tools whose
 * `needsApproval` and `invoke` run the dsh pipeline, with dsh's approvals as
 * the run's interruptions.
 *
 * @packageDocumentation
 */
export { type AgentsBridge, type BridgedTool, openaiAgents } from './bridge.js';
export { AgentsApprovals, type AgentsApprovalsOptions, openaiAgentsApprovals } from './bridge-approvals.js';
export { type DecisionRecord, type DecisionStore, fileDecisionStore, memoryDecisionStore } from './decision-store.js';
export { AgentsBridgeError, AgentsErrorCode } from './errors.js';
export { type OpenAiAgentsBridge, openaiAgentsBridge } from './host-bridge.js';
export {
  type AgentsBridgeOptions,
  agentsBridgeOptionsSchema,
  type OpenAiAgentsBridgeOptions,
  openaiAgentsBridgeOptionsSchema,
  type ToolsOptions,
} from './options.js';
export { version } from './version.js';

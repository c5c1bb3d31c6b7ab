/**
 * dsh as the tool layer of LangChain.js agents: a `createAgent` middleware
 * that runs every tool call through the dsh pipeline, with dsh approvals as
 * LangGraph interrupts.
 *
 * @packageDocumentation
 */
export type { PendingApproval } from './approvals.js';
export { type DshMiddleware, type LangChainBridge, langchainBridge } from './bridge.js';
export { LangChainApprovals, type LangChainApprovalsOptions, langchainApprovals } from './bridge-approvals.js';
export { LangChainBridgeError, LangChainErrorCode } from './errors.js';
export type { DshInterruptValue, DshResumeValue } from './interrupt-value.js';
export {
  bridgeOptionsSchema,
  type DshToolsOptions,
  hostBridgeOptionsSchema,
  type LangChainBridgeOptions,
  type LangChainHostBridgeOptions,
  toolsOptionsSchema,
} from './options.js';
export { version } from './version.js';

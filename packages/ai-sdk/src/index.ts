/**
 * dsh as the tool layer of the Vercel AI SDK: `aiSdkBridge(host).tools()` gives
 * `generateText` / `streamText` a tool set whose every call runs through the
 * dsh pipeline, with dsh's `ask` as the SDK's tool approval
 * (`aiSdkApprovals`) and post-execute context in the next request
 * (`prepareStep`).
 *
 * @packageDocumentation
 */
export { AiSdkApprovals, type AiSdkApprovalsOptions, aiSdkApprovals } from './approvals.js';
export {
  type AiSdkBridge,
  aiSdkBridge,
  type DshTool,
  type DshToolSet,
  dshTools,
  type ToolApprovalAnswer,
  type ToolApprovalQuestion,
} from './dsh-tools.js';
export { AiSdkError, AiSdkErrorCode } from './errors.js';
export type { FrameworkTool } from './framework-tools.js';
export { type ModelOutput, modelOutputOf } from './model-output.js';
export {
  type AiSdkBridgeOptions,
  aiSdkBridgeOptionsSchema,
  type DshToolsOptions,
  dshToolsOptionsSchema,
  type ToolsOptions,
  toolsOptionsSchema,
} from './options.js';
export type { RepairQuestion } from './refused-calls.js';
export type { PendingApproval } from './sdk-calls.js';
export type { SdkCallOptions } from './sdk-types.js';
export { version } from './version.js';

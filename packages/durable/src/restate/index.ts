/**
 * The Restate binding of dsh's durable seam: a session is a virtual object
 * keyed by session id, each tool body and model turn a `ctx.run`, each
 * `ask` an awakeable answered over HTTP.
 *
 * @packageDocumentation
 */
import './promise-with-resolvers.js';

export type { AnswerReceipt, ApprovalWord } from '../durable-approval.js';
export type { SessionRun, SessionSetup, StepInput } from '../session-setup.js';
export { approvalsObjectName } from './approval-names.js';
export { approvalsObject, approvalsObjectFor } from './approvals-object.js';
export {
  type ApproveOptions,
  approve,
  defaultReceiptTimeoutMs,
  type IngressOptions,
  registerDeployment,
  submitRun,
  submitStep,
} from './client.js';
export { restateDurable } from './restate-durable.js';
export { type ServedEndpoint, serveEndpoint } from './serve.js';
export { type DshSessionObjectOptions, dshSessionObject } from './session-object.js';

/**
 * The Restate binding of dsh's durable seam: a session is a virtual object
 * keyed by session id, each tool body and model turn a `ctx.run`, each
 * `ask` an awakeable answered over HTTP.
 *
 * @packageDocumentation
 */
import './promise-with-resolvers.js';

export { approvalsObject } from './approvals-object.js';
export {
  type AnswerReceipt,
  type ApprovalWord,
  approve,
  type IngressOptions,
  registerDeployment,
  submitRun,
  submitStep,
} from './client.js';
export { restateDurable } from './restate-durable.js';
export { type ServedEndpoint, serveEndpoint } from './serve.js';
export { type DshSessionObjectOptions, dshSessionObject, type SessionRun, type SessionSetup, type StepInput } from './session-object.js';

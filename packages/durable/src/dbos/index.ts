/**
 * The DBOS binding of dsh's durable seam, on Postgres: a session step is a
 * DBOS workflow on a queue partitioned by session id (one at a time per
 * session), each tool body and model turn a `DBOS.runStep`, each `ask` a
 * `DBOS.recv` answered with `approve`, which sends through a DBOS workflow.
 *
 * @packageDocumentation
 */

export type { AnswerReceipt, ApprovalWord } from '../durable-approval.js';
export type { SessionRun, SessionSetup, StepInput } from '../session-setup.js';
export { approve } from './approve.js';
export { createSessionClient, type SessionClient, type SessionClientOptions, submitRun, submitStep } from './client.js';
export { dbosDurable, type WaitState } from './dbos-durable.js';
export { recoverExecutor } from './recover-executor.js';
export { type DshSessionWorkflows, type DshSessionWorkflowsOptions, dshSessionWorkflows } from './session-workflows.js';
export { type DbosWorker, type DbosWorkerOptions, launchDbosWorker } from './worker.js';

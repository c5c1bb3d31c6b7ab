/**
 * Durable dsh sessions on an existing engine: the engine-neutral seam
 * ({@link Durable}), the taps that make tool bodies, approvals and model
 * turns durable, and an in-process journal. The engine bindings are the
 * `@deepseek-ai/dsh-durable/restate` (Restate) and
 * `@deepseek-ai/dsh-durable/dbos` (DBOS on Postgres) entries.
 *
 * @packageDocumentation
 */

export { type Durable, idempotencyKey, type WaitResult } from './durable.js';
export {
  type AnswerReceipt,
  type ApprovalWord,
  approvalAnswers,
  approvalKey,
  approvalReplyOf,
  durableApproval,
  isApprovalReply,
} from './durable-approval.js';
export {
  durableExecuteTap,
  durableTapName,
  type IdempotentTools,
  idempotentPredicate,
  interruptedOutcome,
} from './durable-execute.js';
export {
  attachDurable,
  type DurableCreateHostOptions,
  type DurableHostOptions,
  defaultApprovalTimeoutMs,
  durableCreateHostOptions,
} from './durable-host.js';
export { durableModel, type StreamingOptions } from './durable-model.js';
export { type DurableSessionLog, openDurableSessionLog, sessionLogPath } from './durable-session-log.js';
export { DurableError, DurableErrorCode } from './errors.js';
export { type JournalEntry, MemoryJournal, memoryDurable } from './memory-durable.js';
export {
  isStepInput,
  type OpenedSession,
  openSessionHost,
  type SessionHostOptions,
  type SessionRun,
  type SessionSetup,
  type StepInput,
} from './session-setup.js';
export { version } from './version.js';

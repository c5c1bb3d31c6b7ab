/**
 * Durable dsh sessions on an existing engine: the engine-neutral seam
 * ({@link Durable}), the taps that make tool bodies, approvals and model
 * turns durable, and an in-process journal. The Restate binding is the
 * `@deepseek-ai/dsh-durable/restate` entry.
 *
 * @packageDocumentation
 */

export { type Durable, idempotencyKey, type WaitResult } from './durable.js';
export { approvalAnswers, approvalKey, durableApproval, isApprovalReply } from './durable-approval.js';
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
export { DurableError, DurableErrorCode } from './errors.js';
export { type JournalEntry, MemoryJournal, memoryDurable } from './memory-durable.js';
export { version } from './version.js';

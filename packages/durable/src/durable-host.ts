import type { ApprovalProvider, Host } from '@deepseek-ai/dsh-core';
import type { Durable } from './durable.js';
import { durableApproval } from './durable-approval.js';
import { durableExecuteTap, durableTapName, type IdempotentTools } from './durable-execute.js';

/** How a host's calls become durable. */
export interface DurableHostOptions {
  /** Tools safe to run again after an interruption (see {@link IdempotentTools}); `tool.idempotent` by default. */
  readonly idempotent?: IdempotentTools;
  /** How long an `ask` waits for a person before it is denied as `unavailable`: 24 hours by default. */
  readonly approvalTimeoutMs?: number;
}

/** The default durable approval wait: one day. */
export const defaultApprovalTimeoutMs = 24 * 60 * 60 * 1000;

/** The `createHost` options a durable host needs: the durable approval and a host deadline that never cuts it short. */
export interface DurableCreateHostOptions {
  readonly approval: ApprovalProvider;
  readonly approvalTimeoutMs: number;
}

/**
 * The options to spread into `createHost` so that approvals are durable
 * waits. The host's own deadline is set a minute past the durable one, so
 * the durable timeout (which survives restarts) is the one that decides.
 */
export function durableCreateHostOptions(durable: Durable, options: DurableHostOptions = {}): DurableCreateHostOptions {
  const timeoutMs = options.approvalTimeoutMs ?? defaultApprovalTimeoutMs;
  return { approval: durableApproval(durable, timeoutMs), approvalTimeoutMs: timeoutMs + 60_000 };
}

/**
 * Makes every tool body of `host` a durable step: taps `tools/execute`
 * outermost (stage `-1000`, named `durable`). Returns the untap function.
 */
export function attachDurable(host: Host, durable: Durable, options: DurableHostOptions = {}): () => void {
  return host.hooks.execute.tap({ name: durableTapName, stage: -1000 }, durableExecuteTap(durable, options.idempotent));
}

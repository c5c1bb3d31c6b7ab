import { type ApprovalProvider, type ApprovalRequest, z } from '@deepseek-ai/dsh-core';
import { AgentsBridgeError, AgentsErrorCode } from './errors.js';
import { parseOptions } from './internal/parse-options.js';

/** Options of {@link openaiAgentsApprovals}. */
export interface AgentsApprovalsOptions {
  /**
   * Asked for calls that no SDK run made (your code calling `host.runStep` on
   * the same host): without it such calls are denied (`APPROVAL_UNAVAILABLE`) when dsh asks.
   */
  readonly fallback?: ApprovalProvider;
}

const optionsSchema = z.strictObject({
  fallback: z.custom<ApprovalProvider>((v) => typeof v === 'function', 'must be a function').optional(),
});

/**
 * The approval half of the bridge, made before the host because the host
 * takes its provider at creation: give `provider` to `createHost({ approval })`
 * and the object to `openaiAgentsBridge(host, { approvals })`, which then
 * answers through it (dsh's asks become the run's interruptions).
 */
export class AgentsApprovals {
  /** The fallback for calls no SDK run made. */
  readonly fallback: ApprovalProvider | undefined;
  /** The approval provider for `createHost`. */
  readonly provider: ApprovalProvider;
  #target: ApprovalProvider | undefined;

  constructor(options: AgentsApprovalsOptions = {}) {
    this.fallback = parseOptions<AgentsApprovalsOptions>(optionsSchema, options, 'openaiAgentsApprovals').fallback;
    this.provider = (request: ApprovalRequest) => {
      if (this.#target !== undefined) return this.#target(request);
      if (this.fallback !== undefined) return this.fallback(request);
      return { answer: 'unavailable', message: 'no openaiAgentsBridge answers these approvals yet' };
    };
  }

  /** Ties these approvals to one bridge's provider; a second is refused. @internal */
  attach(target: ApprovalProvider): void {
    if (this.#target !== undefined) {
      throw new AgentsBridgeError(
        AgentsErrorCode.APPROVALS_IN_USE,
        'openaiAgentsBridge: approvals: these approvals already serve another bridge; make one openaiAgentsApprovals() per host',
      );
    }
    this.#target = target;
  }
}

/** Makes the approval half of the bridge; see {@link AgentsApprovals}. */
export function openaiAgentsApprovals(options: AgentsApprovalsOptions = {}): AgentsApprovals {
  return new AgentsApprovals(options);
}

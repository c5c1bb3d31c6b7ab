import { type ApprovalProvider, type ApprovalRequest, z } from '@deepseek-ai/dsh-core';
import { LangChainBridgeError, LangChainErrorCode } from './errors.js';
import { parseOptions } from './internal/parse-options.js';

/** Options of {@link langchainApprovals}. */
export interface LangChainApprovalsOptions {
  /**
   * Answers approvals for calls that no LangGraph run is executing (the same
   * host driven by `host.runStep` directly, say). Without it such a call is
   * denied with `LANGCHAIN_APPROVAL_OUTSIDE_GRAPH`.
   */
  readonly fallback?: ApprovalProvider;
}

const optionsSchema = z.strictObject({
  fallback: z.custom<ApprovalProvider>((v) => typeof v === 'function', 'must be a function').optional(),
});

/**
 * The approval half of the bridge, made before the host because the host
 * takes its provider at creation: give `provider` to `createHost({ approval })`
 * and the object to `langchainBridge(host, { approvals })`, which then
 * answers through it (dsh's asks become LangGraph interrupts).
 */
export class LangChainApprovals {
  /** The fallback for calls no LangGraph run is executing. */
  readonly fallback: ApprovalProvider | undefined;
  /** The approval provider for `createHost`. */
  readonly provider: ApprovalProvider;
  #target: ApprovalProvider | undefined;

  constructor(options: LangChainApprovalsOptions = {}) {
    this.fallback = parseOptions('langchainApprovals', optionsSchema, options).fallback;
    this.provider = (request: ApprovalRequest) => {
      if (this.#target !== undefined) return this.#target(request);
      if (this.fallback !== undefined) return this.fallback(request);
      return { answer: 'unavailable', message: 'no langchainBridge answers these approvals yet' };
    };
  }

  /** Ties these approvals to one bridge's provider; a second is refused. @internal */
  attach(target: ApprovalProvider): void {
    if (this.#target !== undefined) {
      throw new LangChainBridgeError(
        LangChainErrorCode.APPROVALS_IN_USE,
        'langchainBridge: approvals: these approvals already serve another bridge; make one langchainApprovals() per host',
      );
    }
    this.#target = target;
  }
}

/** Makes the approval half of the bridge; see {@link LangChainApprovals}. */
export function langchainApprovals(options: LangChainApprovalsOptions = {}): LangChainApprovals {
  return new LangChainApprovals(options);
}

import { type ApprovalProvider, type ApprovalReply, type ApprovalRequest, z } from '@deepseek-ai/dsh-core';
import { AiSdkError, AiSdkErrorCode } from './errors.js';
import { parseOptions } from './internal/parse-options.js';
import type { SdkCalls } from './sdk-calls.js';

/** Options of {@link aiSdkApprovals}. */
export interface AiSdkApprovalsOptions {
  /**
   * Answers approvals the SDK cannot put to the user: calls that did not come
   * from the SDK's tool loop (a `run_code` program's sub-calls, your own
   * `host.runStep`), and calls whose `execute` the SDK ran without asking
   * `needsApproval` first. Without it those are answered `unavailable`,
   * which denies them.
   */
  readonly fallback?: ApprovalProvider;
}

const optionsSchema = z.strictObject({
  fallback: z.custom<ApprovalProvider>((v) => typeof v === 'function', 'must be a function').optional(),
});

/**
 * The bridge between dsh's approval stage and the SDK's tool approvals. Give
 * its `provider` to `createHost({ approval })` (wrap it, with
 * `permissions(...).approval(provider)` say, if you like) and the object to
 * `dshTools(host, { approvals })`.
 */
export class AiSdkApprovals {
  readonly #fallback: ApprovalProvider | undefined;
  #calls: SdkCalls | undefined;
  /**
   * The approval provider for `createHost`: a call of the SDK's tool loop that
   * dsh leaves at `ask` becomes the SDK's `tool-approval-request`, and the
   * user's `tool-approval-response` is dsh's answer (`allowed-once` or
   * `rejected`). An approval covers its one call; a deny is final.
   */
  readonly provider: ApprovalProvider;

  constructor(options: AiSdkApprovalsOptions = {}) {
    const parsed = parseOptions('aiSdkApprovals', optionsSchema, options);
    this.#fallback = parsed.fallback;
    this.provider = (request: ApprovalRequest) => this.#ask(request);
  }

  /** Ties this bridge to the calls of one `dshTools`; a second is refused. @internal */
  attach(calls: SdkCalls): () => void {
    if (this.#calls !== undefined) {
      throw new AiSdkError(
        AiSdkErrorCode.APPROVALS_IN_USE,
        'these approvals already serve another dshTools: make one aiSdkApprovals() per host',
      );
    }
    this.#calls = calls;
    return () => {
      if (this.#calls === calls) this.#calls = undefined;
    };
  }

  #ask(request: ApprovalRequest): ApprovalReply | Promise<ApprovalReply | string> {
    const waiting = this.#calls?.ask(request);
    if (waiting !== undefined) return waiting;
    if (this.#fallback !== undefined) return Promise.resolve(this.#fallback(request));
    return {
      answer: 'unavailable',
      message: `${AiSdkErrorCode.APPROVAL_OUTSIDE_SDK}: the call needs approval, but it is not one the AI SDK can ask the user about`,
    };
  }
}

/** Makes the bridge between dsh approvals and the SDK's tool approvals; see {@link AiSdkApprovals}. */
export function aiSdkApprovals(options: AiSdkApprovalsOptions = {}): AiSdkApprovals {
  return new AiSdkApprovals(options);
}

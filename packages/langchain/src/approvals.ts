import type { ApprovalAnswer, ApprovalProvider, ApprovalReply, ApprovalRequest } from '@deepseek-ai/dsh-core';
import type { CallRun } from './call-run.js';
import { LangChainErrorCode } from './errors.js';

/** A call waiting for a person: what `bridge.pending()` lists. */
export interface PendingApproval {
  readonly callId: string;
  readonly tool: string;
  readonly args: ApprovalRequest['args'];
  readonly reason: string | undefined;
}

/**
 * The approval side of the bridge: the provider the host asks. For a call a
 * LangGraph run is executing it does not answer itself; it parks the question
 * on the call's record, and the middleware, in the graph's own context, turns
 * it into `interrupt()`. The answer comes back when the graph is resumed.
 */
export class GraphApprovals {
  readonly #runs = new Map<string, CallRun>();

  constructor(private readonly fallback: ApprovalProvider | undefined) {}

  /** The provider to give `createHost({ approval })`. */
  readonly provider: ApprovalProvider = (request) => this.#ask(request);

  /** Starts routing approvals of `run` (by its call id) to the graph. */
  track(run: CallRun): void {
    this.#runs.set(run.id, run);
  }

  /** Stops routing approvals of `run`: it settled. */
  untrack(run: CallRun): void {
    if (this.#runs.get(run.id) === run) this.#runs.delete(run.id);
  }

  /** The calls waiting for a person, in the order they were asked. */
  pending(): PendingApproval[] {
    const list: PendingApproval[] = [];
    for (const run of this.#runs.values()) {
      const question = run.question;
      if (question === undefined) continue;
      list.push({ callId: run.id, tool: run.name, args: question.request.args, reason: question.request.reason });
    }
    return list;
  }

  /** Answers `cancelled` to every waiting call (or to `callId` only); returns how many were waiting. */
  cancelPending(callId?: string): number {
    let count = 0;
    for (const run of [...this.#runs.values()]) {
      if (run.question === undefined || (callId !== undefined && run.id !== callId)) continue;
      run.question.answer({ answer: 'cancelled', message: `${LangChainErrorCode.APPROVAL_CANCELLED}: the approval was cancelled` });
      count += 1;
    }
    return count;
  }

  #ask(request: ApprovalRequest): Promise<ApprovalAnswer | ApprovalReply> | ApprovalAnswer | ApprovalReply {
    const run = this.#runs.get(request.call.id);
    if (run === undefined || run.name !== request.call.name) {
      if (this.fallback !== undefined) return this.fallback(request) as Promise<ApprovalAnswer | ApprovalReply>;
      return {
        answer: 'unavailable',
        message: `${LangChainErrorCode.APPROVAL_OUTSIDE_GRAPH}: no LangGraph run is executing call "${request.call.id}"`,
      };
    }
    return new Promise<ApprovalReply>((resolve) => {
      const done = (reply: ApprovalReply) => {
        request.signal.removeEventListener('abort', onAbort);
        if (run.question !== question) return;
        run.question = undefined;
        run.enter('admitting');
        resolve(reply);
      };
      // The host's deadline or a cancelled step: core has denied already; forget the question.
      const onAbort = () => done({ answer: 'cancelled' });
      const question = { request, answer: done };
      run.question = question;
      request.signal.addEventListener('abort', onAbort, { once: true });
      run.enter('asking');
    });
  }
}

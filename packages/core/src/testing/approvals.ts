import type { ApprovalAnswer, ApprovalProvider, ApprovalReply, ApprovalRequest } from '../approval.js';

/** An approval provider that answers from a script and remembers what it was asked. */
export interface ApprovalScript {
  readonly provider: ApprovalProvider;
  readonly requests: readonly ApprovalRequest[];
}

/**
 * Answers every request with `answer`, or with the result of calling it.
 * `requests` records each request in order.
 */
export function scriptedApproval(
  answer: ApprovalAnswer | ApprovalReply | ((request: ApprovalRequest) => ReturnType<ApprovalProvider>),
): ApprovalScript {
  const requests: ApprovalRequest[] = [];
  return {
    requests,
    provider: (request) => {
      requests.push(request);
      return typeof answer === 'function' ? answer(request) : answer;
    },
  };
}

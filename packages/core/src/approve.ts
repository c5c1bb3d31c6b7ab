import type { ApprovalProvider } from './approval.js';
import type { CallRun } from './call-run.js';
import { ErrorCode, messageOf } from './errors.js';
import type { EventData } from './events.js';
import { isPromiseLike, withDeadline } from './internal/deadline.js';
import { deniedOutcome, errorOutcome } from './outcome.js';
import type { Runtime } from './runtime.js';

type Answer = EventData<'approval/answer'>;

/** Logs `approval/request` for the call; returns when it was asked. */
export function requestApproval(rt: Runtime, run: CallRun): number {
  const data: { -readonly [K in keyof EventData<'approval/request'>]: EventData<'approval/request'>[K] } = {
    name: run.identity.name,
    args: run.args,
  };
  if (run.askReason !== undefined) data.reason = run.askReason;
  if (run.askBy !== undefined) data.by = run.askBy;
  rt.log.append('approval/request', data, run.identity);
  return Date.now();
}

/** Logs `approval/answer`: what it was, who gave it, how long it took. */
export function logAnswer(
  rt: Runtime,
  run: CallRun,
  startedAt: number,
  answer: Answer['answer'],
  source: Answer['source'],
  message?: string,
  grant?: string,
): void {
  const data: { -readonly [K in keyof Answer]: Answer[K] } = { answer, source, elapsedMs: Math.max(0, Date.now() - startedAt) };
  if (message !== undefined) data.message = message;
  if (grant !== undefined) data.grant = grant;
  rt.log.append('approval/answer', data, run.identity);
}

/** The provider's answers that deny: the code and the reason when the provider gave no message. */
const denials: Readonly<Record<string, readonly [string, string]>> = {
  rejected: [ErrorCode.APPROVAL_REJECTED, 'the user rejected this call'],
  cancelled: [ErrorCode.APPROVAL_CANCELLED, 'the user cancelled the approval of this call'],
  unavailable: [ErrorCode.APPROVAL_UNAVAILABLE, 'approval was unavailable, so the call was denied'],
};

/** Stage 5: ask once, logging the request and the answer. No provider, a throw, a late or unknown answer: deny. */
export async function approve(rt: Runtime, run: CallRun, stepSignal: AbortSignal | undefined): Promise<boolean> {
  const tool = run.tool;
  if (tool === undefined) return false;
  const startedAt = requestApproval(rt, run);
  const deny = (answer: Answer['answer'], source: Answer['source'], code: string, reason: string, message = reason): false => {
    run.outcome = deniedOutcome('approval', code, reason, 'approval');
    logAnswer(rt, run, startedAt, answer, source, message);
    return false;
  };
  const provider = rt.approval;
  if (provider === undefined) {
    const reason = 'this call needs approval and no approval provider is configured, so it was denied';
    return deny('unavailable', 'none', ErrorCode.APPROVAL_UNAVAILABLE, reason);
  }
  const controller = new AbortController();
  const onStepAbort = (): void => controller.abort(stepSignal?.reason);
  stepSignal?.addEventListener('abort', onStepAbort, { once: true });
  const timeout = rt.limits.approvalTimeoutMs;
  let reply: Awaited<ReturnType<ApprovalProvider>>;
  try {
    const request = {
      call: run.identity,
      tool: { name: tool.name, description: tool.description },
      args: run.args,
      signal: controller.signal,
      ...(run.askReason === undefined ? {} : { reason: run.askReason }),
    };
    const returned = provider(request);
    if (isPromiseLike(returned)) {
      const settled = await withDeadline(returned, timeout, controller.signal);
      if (settled.timedOut) {
        controller.abort(new Error('approval deadline passed'));
        if (stepSignal?.aborted) {
          const reason = 'the step was cancelled while this call waited for approval';
          run.outcome = errorOutcome('approval', ErrorCode.ABORTED_BEFORE_DISPATCH, reason);
          logAnswer(rt, run, startedAt, 'cancelled', 'step', reason);
          return false;
        }
        return deny(
          'unavailable',
          'timeout',
          ErrorCode.APPROVAL_TIMEOUT,
          `no approval answer within ${timeout} ms, so the call was denied`,
        );
      }
      reply = settled.value;
    } else {
      reply = returned;
    }
  } catch (error) {
    return deny(
      'failed',
      'provider',
      ErrorCode.APPROVAL_FAILED,
      `the approval provider failed, so the call was denied: ${messageOf(error)}`,
    );
  } finally {
    stepSignal?.removeEventListener('abort', onStepAbort);
  }
  const replied = typeof reply === 'object' && reply !== null ? reply : undefined;
  const answer = typeof reply === 'string' ? reply : replied?.answer;
  const message = typeof replied?.message === 'string' ? replied.message : undefined;
  if (answer === 'allowed-once') {
    run.allowedBy = 'approval';
    logAnswer(rt, run, startedAt, 'allowed-once', 'provider', message, typeof replied?.grant === 'string' ? replied.grant : undefined);
    return true;
  }
  const denial = typeof answer === 'string' && Object.hasOwn(denials, answer) ? denials[answer] : undefined;
  if (denial === undefined) {
    const reason = `the approval provider gave an unknown answer ${JSON.stringify(answer)}, so the call was denied`;
    return deny('failed', 'provider', ErrorCode.APPROVAL_FAILED, reason);
  }
  const [code, fallback] = denial;
  const reason = message ?? fallback;
  return deny(answer as Answer['answer'], 'provider', code, reason, message);
}

import { type AnswerReceipt, approve } from '@deepseek-ai/dsh-durable/restate/client';
import { CliError, CliErrorCode } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';

/** The Restate ingress `dsh approve` posts to when neither `--ingress` nor `DSH_RESTATE_INGRESS` says otherwise. */
export const defaultIngressUrl = 'http://127.0.0.1:8080';

/** Options of `dsh approve`. */
export interface ApproveOptions {
  readonly session: string;
  readonly call: string;
  readonly word: 'allow' | 'deny';
  /** Shown to the model with a deny (and logged with an allow). */
  readonly message?: string;
  /** The Restate ingress; else `DSH_RESTATE_INGRESS`, else {@link defaultIngressUrl}. */
  readonly ingress?: string;
  readonly json: boolean;
}

const said: Readonly<Record<AnswerReceipt['status'], string>> = {
  delivered: 'delivered: the waiting call has it',
  kept: 'kept: the call has not asked yet (or its worker is down); it gets this answer when it does',
  'already-answered': 'not applied: an earlier answer stands (the first answer is final)',
};

/**
 * `dsh approve SESSION CALL allow|deny`: answers the approval a durable
 * session's call waits on (`@deepseek-ai/dsh-durable` on Restate), whether or
 * not a worker runs now. Exits 0 when this answer counts, 1 when an earlier
 * one stands, 6 when the engine cannot be reached or refuses.
 */
export async function runApprove(io: CliIo, options: ApproveOptions): Promise<ExitCode> {
  const ingressUrl = options.ingress ?? io.env.DSH_RESTATE_INGRESS ?? defaultIngressUrl;
  let receipt: AnswerReceipt;
  try {
    receipt = await approve({ ingressUrl }, options.session, options.call, options.word, options.message);
  } catch (error) {
    throw engineError(error, ingressUrl);
  }
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ session: options.session, call: options.call, answer: options.word, ...receipt })}\n`);
  } else {
    io.stdout.write(`${options.word} for call ${options.call} of session ${options.session}: ${said[receipt.status]}\n`);
  }
  return receipt.status === 'already-answered' ? ExitCode.EXPECTATION_FAILED : ExitCode.OK;
}

function engineError(error: unknown, ingressUrl: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'INVALID_INPUT') return new CliError(CliErrorCode.USAGE, `approve: ${message}`);
  if (code === 'ENGINE_UNREACHABLE' || code === 'ENGINE_ERROR') {
    return new CliError(
      CliErrorCode.ENGINE_UNAVAILABLE,
      `approve: ${message} (the Restate ingress: --ingress, DSH_RESTATE_INGRESS, now ${ingressUrl})`,
    );
  }
  return error;
}

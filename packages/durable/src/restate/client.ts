import type { JsonValue, StepCall, StepResult } from '@deepseek-ai/dsh-core';
import { type AnswerReceipt, type ApprovalWord, approvalReplyOf } from '../durable-approval.js';
import { DurableError, DurableErrorCode, isDurableErrorCode } from '../errors.js';
import { answerIdempotencyKey, approvalsObjectName } from './approval-names.js';

// The entry `@deepseek-ai/dsh-durable/restate/client` stands alone: its answer types come with it.
export type { AnswerReceipt, ApprovalWord };

/** How to reach a Restate ingress (`http://host:8080`) and which session object to call. */
export interface IngressOptions {
  readonly ingressUrl: string;
  /** The session object's name: `dsh-session` by default. */
  readonly objectName?: string;
  /** Aborts the HTTP request (the invocation itself goes on in the engine). */
  readonly signal?: AbortSignal;
}

async function post(url: string, body: JsonValue, signal: AbortSignal | undefined, headers: Record<string, string> = {}): Promise<unknown> {
  const init = { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
  return request(url, init, signal);
}

async function request(url: string, init: RequestInit, signal: AbortSignal | undefined): Promise<unknown> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...init, ...(signal === undefined ? {} : { signal }) });
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new DurableError(DurableErrorCode.ENGINE_UNREACHABLE, `cannot reach the engine at ${url}: ${(error as Error).cause ?? error}`, {
      cause: error,
    });
  }
  if (response.ok) return text === '' ? null : JSON.parse(text);
  let message = text;
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {}
  // A handler's terminal error starts with one of this package's codes: keep it.
  const code = /^([A-Z_]+): /.exec(message)?.[1];
  if (isDurableErrorCode(code)) throw new DurableError(code, message.slice(code.length + 2));
  throw new DurableError(DurableErrorCode.ENGINE_ERROR, `${url}: HTTP ${response.status}: ${message}`);
}

function base(options: IngressOptions): string {
  return options.ingressUrl.replace(/\/+$/, '');
}

function checkSession(session: string): void {
  if (typeof session !== 'string' || session === '')
    throw new DurableError(DurableErrorCode.INVALID_INPUT, 'session must be a non-empty string');
}

/**
 * Runs one step of a session on the engine and waits for its result. Pass
 * the same `idempotencyKey` when retrying a submission (after a network
 * error, say): the engine then attaches to the first invocation instead of
 * starting a second.
 */
export async function submitStep(
  options: IngressOptions & { readonly idempotencyKey?: string },
  session: string,
  calls: readonly StepCall[],
): Promise<StepResult> {
  checkSession(session);
  const url = `${base(options)}/${options.objectName ?? 'dsh-session'}/${encodeURIComponent(session)}/step`;
  const headers: Record<string, string> = options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey };
  return (await post(url, { calls: calls as unknown as JsonValue }, options.signal, headers)) as StepResult;
}

/** Runs the session's program (the `run` handler) with `input`; same idempotency as {@link submitStep}. */
export async function submitRun(
  options: IngressOptions & { readonly idempotencyKey?: string },
  session: string,
  input: JsonValue,
): Promise<JsonValue> {
  checkSession(session);
  const url = `${base(options)}/${options.objectName ?? 'dsh-session'}/${encodeURIComponent(session)}/run`;
  const headers: Record<string, string> = options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey };
  return (await post(url, input, options.signal, headers)) as JsonValue;
}

/** Options of {@link approve}. */
export interface ApproveOptions extends Pick<IngressOptions, 'ingressUrl' | 'signal'> {
  /** The session object's name (`dsh-session` by default): its approvals object holds the question. */
  readonly objectName?: string;
  /**
   * How long to wait for a worker to take the answer and say whether the
   * call was waiting (`delivered`), in ms: 5000 by default. The answer is
   * durable and final as soon as the engine accepts it; when no worker takes
   * it in time (none runs, say) the receipt is `kept`.
   */
  readonly receiptTimeoutMs?: number;
}

/** How long {@link approve} waits for a worker's receipt before it says `kept`. */
export const defaultReceiptTimeoutMs = 5000;

interface SendResponse {
  readonly invocationId: string;
  readonly status: 'Accepted' | 'PreviouslyAccepted';
}

/**
 * Answers the approval a session's call waits on (`dsh approve <session>
 * <call> allow|deny`). Works whether or not a worker runs now, and before
 * the call has even asked: the engine itself accepts the first answer
 * (sent under one idempotency key per question) and keeps it. The first
 * answer is final, and so is the call's deadline once it passed: a later
 * answer gets `already-answered` at once and changes nothing.
 */
export async function approve(
  options: ApproveOptions,
  session: string,
  callId: string,
  word: ApprovalWord,
  message?: string,
): Promise<AnswerReceipt> {
  checkSession(session);
  if (typeof callId !== 'string' || callId === '')
    throw new DurableError(DurableErrorCode.INVALID_INPUT, 'call id must be a non-empty string');
  const receiptTimeoutMs = options.receiptTimeoutMs ?? defaultReceiptTimeoutMs;
  if (!Number.isFinite(receiptTimeoutMs) || receiptTimeoutMs < 0)
    throw new DurableError(DurableErrorCode.INVALID_OPTIONS, 'receiptTimeoutMs must be a number of ms, 0 or more');
  const reply = approvalReplyOf(word, message);
  const key = encodeURIComponent(`${session}:approval ${callId}`);
  const sent = (await post(
    `${base(options)}/${approvalsObjectName(options.objectName)}/${key}/answer/send`,
    reply as unknown as JsonValue,
    options.signal,
    {
      'idempotency-key': answerIdempotencyKey,
    },
  )) as SendResponse;
  if (sent.status === 'PreviouslyAccepted') return { status: 'already-answered' };
  // Accepted: this answer is the first. Whether the call waits for it now only a worker can say.
  const bound = AbortSignal.timeout(receiptTimeoutMs);
  const signal = options.signal === undefined ? bound : AbortSignal.any([options.signal, bound]);
  try {
    const outcome = (await request(`${base(options)}/restate/invocation/${encodeURIComponent(sent.invocationId)}/attach`, {}, signal)) as {
      status: AnswerReceipt['status'];
    };
    return { status: outcome.status };
  } catch (error) {
    if (bound.aborted && options.signal?.aborted !== true) return { status: 'kept' };
    throw error;
  }
}

/**
 * Registers (or re-registers, `force`) a worker's endpoint with the engine's
 * admin API, so the engine learns its objects and sends it invocations.
 */
export async function registerDeployment(options: {
  readonly adminUrl: string;
  readonly workerUrl: string;
  readonly signal?: AbortSignal;
}): Promise<void> {
  const url = `${options.adminUrl.replace(/\/+$/, '')}/deployments`;
  await post(url, { uri: options.workerUrl, force: true }, options.signal);
}

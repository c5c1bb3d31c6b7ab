import { messageOf } from '@deepseek-ai/dsh-core';
import type { AgentErrorCode } from './errors.js';

/**
 * What is known about one failed model request, read from whatever the
 * provider's SDK threw (or a custom model's error with the same fields).
 */
export interface ModelErrorDetail {
  /** The provider's message (the SDK's, which starts with the HTTP status). */
  readonly message: string;
  /** The HTTP status, when the server answered. Absent for connection failures. */
  readonly status?: number;
  /** The provider's error type: `rate_limit_error`, `overloaded_error`, `insufficient_quota`, `RESOURCE_EXHAUSTED`, … */
  readonly type?: string;
  /** How long the provider asked to wait (`retry-after-ms`, `retry-after`, Google's `RetryInfo`), in milliseconds. */
  readonly retryAfterMs?: number;
  /** Whether trying again may succeed: 408, 409, 425, 429 (not an exhausted quota), 5xx, and connection failures. */
  readonly retryable: boolean;
}

/** Why a run got no usable turn (`AgentResult.error` with `stop: 'model-error'`): the last failure, and how many requests were made. */
export interface ModelFailure extends ModelErrorDetail {
  readonly code: typeof AgentErrorCode.MODEL_FAILED;
  /** Requests made for the turn, the failed ones included. */
  readonly attempts: number;
}

/** A request whose error bodies say the account, not the moment, is the problem: retrying cannot help. */
const hopeless = new Set(['insufficient_quota', 'billing_error']);

const connectionCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Reads status, error type, `retry-after` and retryability from an error a model threw. */
export function describeModelError(error: unknown): ModelErrorDetail {
  const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const message = messageOf(error);
  const status = typeof e.status === 'number' && Number.isInteger(e.status) ? e.status : undefined;
  const google = googleBody(status === undefined ? undefined : message);
  const type = stringOr(e.type) ?? stringOr(record(e.error)?.type) ?? stringOr(record(record(e.error)?.error)?.type) ?? google?.status;
  const retryAfterMs = retryAfterOf(e.headers) ?? google?.retryAfterMs;
  const shouldRetry = header(e.headers, 'x-should-retry');
  let retryable: boolean;
  if (status === undefined) retryable = isConnectionFailure(error);
  else if (shouldRetry === 'true' || shouldRetry === 'false') retryable = shouldRetry === 'true';
  else retryable = (status === 408 || status === 409 || status === 425 || status === 429 || status >= 500) && !hopeless.has(type ?? '');
  return {
    message,
    retryable,
    ...(status === undefined ? {} : { status }),
    ...(type === undefined ? {} : { type }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
}

function stringOr(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function header(headers: unknown, name: string): string | undefined {
  if (headers === undefined || headers === null) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** `retry-after-ms` (OpenAI, Anthropic), else `retry-after` as seconds or an HTTP date. */
function retryAfterOf(headers: unknown): number | undefined {
  const ms = Number.parseFloat(header(headers, 'retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const after = header(headers, 'retry-after');
  if (after === undefined) return undefined;
  const seconds = Number(after);
  if (after.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * `@google/genai` puts the error body, as JSON text, in its message: the RPC
 * status name (`RESOURCE_EXHAUSTED`) and a `RetryInfo` detail (`"retryDelay": "30s"`).
 */
function googleBody(message: string | undefined): { status?: string; retryAfterMs?: number } | undefined {
  if (message === undefined) return undefined;
  const start = message.indexOf('{');
  if (start === -1) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(message.slice(start));
  } catch {
    return undefined;
  }
  const error = record(record(body)?.error);
  if (error === undefined) return undefined;
  const status = stringOr(error.status);
  const details = Array.isArray(error.details) ? error.details : [];
  const info = details.map(record).find((d) => typeof d?.['@type'] === 'string' && String(d['@type']).endsWith('RetryInfo'));
  const delay = /^(\d+(?:\.\d+)?)s$/.exec(stringOr(info?.retryDelay) ?? '');
  return {
    ...(status === undefined ? {} : { status }),
    ...(delay?.[1] === undefined ? {} : { retryAfterMs: Math.round(Number(delay[1]) * 1000) }),
  };
}

/** A request that never got an answer: reset, refused, timed out, or the SDK's connection error. */
function isConnectionFailure(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 6; depth++) {
    const r = record(e);
    if (r === undefined) return false;
    const name = stringOr(r.name) ?? '';
    if (name === 'AbortError' || name.endsWith('UserAbortError')) return false;
    if (name.endsWith('ConnectionError') || name.endsWith('ConnectionTimeoutError')) return true;
    if (typeof r.code === 'string' && connectionCodes.has(r.code)) return true;
    if (/^(fetch failed|terminated|socket hang up|other side closed)/i.test(stringOr(r.message) ?? '')) return true;
    e = r.cause;
  }
  return false;
}

import type { Durable } from './durable.js';

/** What the model seam's options look like to this wrapper (`@deepseek-ai/dsh-agent`'s `ModelCallOptions`). */
export interface StreamingOptions {
  readonly signal?: AbortSignal;
  readonly onText?: (delta: string) => void;
}

/** A failed model request as journaled: enough for `describeModelError` to classify it again. */
interface JournaledFailure {
  readonly failed: true;
  readonly name: string;
  readonly message: string;
  readonly status?: number;
  readonly code?: string;
}

function failureOf(error: unknown): JournaledFailure {
  const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const failure: { failed: true; name: string; message: string; status?: number; code?: string } = {
    failed: true,
    name: typeof e.name === 'string' ? e.name : 'Error',
    message: error instanceof Error ? error.message : String(error),
  };
  if (typeof e.status === 'number') failure.status = e.status;
  if (typeof e.code === 'string') failure.code = e.code;
  return failure;
}

function errorOf(failure: JournaledFailure): Error {
  const error = new Error(failure.message) as Error & { status?: number; code?: string };
  error.name = failure.name;
  if (failure.status !== undefined) error.status = failure.status;
  if (failure.code !== undefined) error.code = failure.code;
  return error;
}

/**
 * Wraps a model (`@deepseek-ai/dsh-agent`'s `Model`, or anything of that
 * shape) so each request is one durable step, named `model <n>` by its
 * order in the run. A replayed turn is not asked again: `onText` then gets
 * the turn's whole text once. A failed request is journaled as a failure and
 * rethrown with its name, message, `status` and `code`, so a retry policy
 * sees the same error and its retry is a new step.
 */
export function durableModel<Request, Options extends StreamingOptions, Turn extends { readonly text: string }>(
  model: (request: Request, options: Options) => Promise<Turn>,
  durable: Durable,
): (request: Request, options: Options) => Promise<Turn> {
  let turns = 0;
  return async (request, options) => {
    turns += 1;
    let ran = false;
    const journaled = await durable.step<Turn | JournaledFailure>(`model ${turns}`, async () => {
      ran = true;
      try {
        return await model(request, options);
      } catch (error) {
        return failureOf(error);
      }
    });
    if ((journaled as JournaledFailure).failed === true) throw errorOf(journaled as JournaledFailure);
    const turn = journaled as Turn;
    if (!ran && turn.text !== '') options.onText?.(turn.text);
    return turn;
  };
}

// Text helpers for the worker side, which loads no dsh package: a worker starts faster without core.

/** An error's message, or a short description of any other thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string' ? error : String(error);
}

/** JSON text the program's bootstrap produced, or `undefined` when it is not JSON. */
export function parseGuestJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

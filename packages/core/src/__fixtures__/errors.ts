import { DshError } from '../index.js';

/** The code of the DshError `fn` throws; `undefined` when it does not throw, a note when it throws anything else. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return DshError.isInstance(error) ? error.code : `not a DshError: ${String(error)}`;
  }
  return undefined;
}

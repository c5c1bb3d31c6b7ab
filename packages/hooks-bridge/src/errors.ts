import { DshError } from '@deepseek-ai/dsh-core';

/**
 * Stable codes of hooks-bridge. `INVALID_OPTIONS` is thrown by the factory;
 * the others name what went wrong with one hook run or one configuration
 * entry, in `hook/result` events, diagnostics and denial reasons.
 */
export const HookErrorCode = {
  /** The factory's options (or hooks given in code) are invalid. */
  INVALID_OPTIONS: 'INVALID_OPTIONS',
  /** A settings file or one of its entries could not be used; the other entries still run. */
  HOOK_CONFIG_INVALID: 'HOOK_CONFIG_INVALID',
  /** The hook's command could not be started (missing, not executable). */
  HOOK_SPAWN_FAILED: 'HOOK_SPAWN_FAILED',
  /** The hook did not finish within its timeout; its process group was killed. */
  HOOK_TIMEOUT: 'HOOK_TIMEOUT',
  /** The call was cancelled while the hook ran; its process group was killed. */
  HOOK_ABORTED: 'HOOK_ABORTED',
  /** The hook exited with a code other than 0 or 2 and gave no valid JSON: a non-blocking error. */
  HOOK_EXIT_NONZERO: 'HOOK_EXIT_NONZERO',
  /** The hook printed JSON that does not follow its dialect's output schema. */
  HOOK_BAD_OUTPUT: 'HOOK_BAD_OUTPUT',
  /** A hook's `updatedToolOutput` did not pass the tool's output schema, so it was ignored. */
  HOOK_OUTPUT_REJECTED: 'HOOK_OUTPUT_REJECTED',
} as const;

/** One of hooks-bridge's stable codes. */
export type HookErrorCode = (typeof HookErrorCode)[keyof typeof HookErrorCode];

/** An error thrown by the `hooksBridge` factory or `loadHookConfig` for wrong use; `code` is stable. */
export class HooksBridgeError extends DshError {
  constructor(code: HookErrorCode, message: string, options?: { cause?: unknown; data?: unknown }) {
    super(code, message, options);
    this.name = 'HooksBridgeError';
  }
}

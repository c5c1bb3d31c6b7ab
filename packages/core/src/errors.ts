/**
 * Stable error codes of core. Each appears in outcomes or in errors thrown at
 * registration time, and is listed with its meaning in the package README.
 */
export const ErrorCode = {
  // Outcome error codes (status 'error').
  UNKNOWN_TOOL: 'UNKNOWN_TOOL',
  INVALID_ARGS: 'INVALID_ARGS',
  INVALID_CALL: 'INVALID_CALL',
  INVALID_TOOL_OUTPUT: 'INVALID_TOOL_OUTPUT',
  TOOL_FAILED: 'TOOL_FAILED',
  TOOL_TIMEOUT: 'TOOL_TIMEOUT',
  ABORTED: 'ABORTED',
  ABORTED_BEFORE_DISPATCH: 'ABORTED_BEFORE_DISPATCH',
  DUPLICATE_CALL_ID: 'DUPLICATE_CALL_ID',
  TOOL_OUTCOME_UNKNOWN: 'TOOL_OUTCOME_UNKNOWN',
  TOOL_INTERRUPTED: 'TOOL_INTERRUPTED',
  SINK_FAILED: 'SINK_FAILED',
  PATH_RESOLUTION_FAILED: 'PATH_RESOLUTION_FAILED',
  POST_EXECUTE_FAILED: 'POST_EXECUTE_FAILED',
  // Denial codes (status 'denied').
  PRE_EXECUTE_DENIED: 'PRE_EXECUTE_DENIED',
  PRE_EXECUTE_FAILED: 'PRE_EXECUTE_FAILED',
  APPROVAL_REJECTED: 'APPROVAL_REJECTED',
  APPROVAL_CANCELLED: 'APPROVAL_CANCELLED',
  APPROVAL_UNAVAILABLE: 'APPROVAL_UNAVAILABLE',
  APPROVAL_FAILED: 'APPROVAL_FAILED',
  APPROVAL_TIMEOUT: 'APPROVAL_TIMEOUT',
  GUARD_DENIED: 'GUARD_DENIED',
  GUARD_FAILED: 'GUARD_FAILED',
  // Block code (status 'blocked').
  POST_EXECUTE_BLOCKED: 'POST_EXECUTE_BLOCKED',
  // Step-level problems (StepResult.error).
  EMPTY_STEP: 'EMPTY_STEP',
  INVALID_STEP: 'INVALID_STEP',
  // Thrown by registration APIs: programming errors found at setup.
  INVALID_TOOL_DEFINITION: 'INVALID_TOOL_DEFINITION',
  DUPLICATE_TOOL: 'DUPLICATE_TOOL',
  RESERVED_TOOL_NAME: 'RESERVED_TOOL_NAME',
  DUPLICATE_TAP: 'DUPLICATE_TAP',
  INVALID_TAP: 'INVALID_TAP',
  DUPLICATE_GUARD: 'DUPLICATE_GUARD',
  INVALID_GUARD: 'INVALID_GUARD',
  DUPLICATE_PLUGIN: 'DUPLICATE_PLUGIN',
  INVALID_PLUGIN: 'INVALID_PLUGIN',
  PLUGIN_DEPENDENCY_MISSING: 'PLUGIN_DEPENDENCY_MISSING',
  PLUGIN_DEPENDENCY_VERSION: 'PLUGIN_DEPENDENCY_VERSION',
  PLUGIN_REGISTER_FAILED: 'PLUGIN_REGISTER_FAILED',
  PLUGIN_REGISTER_TIMEOUT: 'PLUGIN_REGISTER_TIMEOUT',
  PLUGIN_CLOSE_FAILED: 'PLUGIN_CLOSE_FAILED',
  PLUGIN_CLOSE_TIMEOUT: 'PLUGIN_CLOSE_TIMEOUT',
  UNKNOWN_EVENT_TYPE: 'UNKNOWN_EVENT_TYPE',
  DUPLICATE_EVENT_TYPE: 'DUPLICATE_EVENT_TYPE',
  INVALID_EVENT_DATA: 'INVALID_EVENT_DATA',
  INVALID_OPTIONS: 'INVALID_OPTIONS',
  DUPLICATE_SANDBOX_POLICY: 'DUPLICATE_SANDBOX_POLICY',
  SANDBOX_POLICY_FAILED: 'SANDBOX_POLICY_FAILED',
  INVALID_SESSION_LOG: 'INVALID_SESSION_LOG',
  SESSION_LOCKED: 'SESSION_LOCKED',
  RESUME_REFUSED: 'RESUME_REFUSED',
} as const;

/** One of core's stable error codes. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const marker = Symbol.for('@deepseek-ai/dsh-core/DshError');

/**
 * An error with a stable `code`. Registration APIs throw it for wrong use;
 * the pipeline turns it into an outcome's `error` when a stage raises it.
 * `DshError.isInstance` works across duplicated copies of core.
 */
export class DshError extends Error {
  readonly code: string;
  readonly data: unknown;
  readonly [marker] = true;

  constructor(code: string, message: string, options?: { cause?: unknown; data?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DshError';
    this.code = code;
    this.data = options?.data;
  }

  /** True for any DshError, including one made by another copy of this package. */
  static isInstance(value: unknown): value is DshError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}

/**
 * What a tool body throws for an expected failure: the outcome's error gets
 * this `code` (instead of `TOOL_FAILED`) and the JSON `data`, so the model
 * and the UI can tell failures apart.
 */
export class ToolError extends DshError {
  constructor(code: string, message: string, options?: { cause?: unknown; data?: unknown }) {
    super(code, message, options);
    this.name = 'ToolError';
  }
}

const deniedMarker = Symbol.for('@deepseek-ai/dsh-core/ToolDenied');

/**
 * What a tool body throws when a check inside it refuses the call before it
 * changed anything (a vetoed gate, say): the outcome is `denied`, not
 * `error`, so it is final like any other denial. `by` names who refused.
 */
export class ToolDenied extends DshError {
  readonly by: string | undefined;
  readonly [deniedMarker] = true;

  constructor(code: string, reason: string, options?: { by?: string; cause?: unknown }) {
    super(code, reason, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolDenied';
    this.by = options?.by;
  }

  /** True for any ToolDenied, including one made by another copy of this package. */
  static override isInstance(value: unknown): value is ToolDenied {
    return typeof value === 'object' && value !== null && deniedMarker in value;
  }
}

/** A readable message for any thrown value, never throwing itself. */
export function messageOf(value: unknown): string {
  if (value instanceof Error) return value.message || value.name;
  if (typeof value === 'string') return value;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

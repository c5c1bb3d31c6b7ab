/**
 * The attribute and instrument names the plugin writes. GenAI names follow
 * the OpenTelemetry GenAI semantic conventions for `execute_tool` spans;
 * `dsh.*` names are this project's own, for what those conventions do not cover.
 */
export const OtelNames = {
  /** Span name prefix: `execute_tool <tool name>`. */
  OPERATION: 'execute_tool',
  OPERATION_NAME: 'gen_ai.operation.name',
  TOOL_NAME: 'gen_ai.tool.name',
  TOOL_CALL_ID: 'gen_ai.tool.call.id',
  TOOL_DESCRIPTION: 'gen_ai.tool.description',
  TOOL_TYPE: 'gen_ai.tool.type',
  /** Opt-in (`captureArguments`): may hold sensitive data. */
  TOOL_CALL_ARGUMENTS: 'gen_ai.tool.call.arguments',
  CONVERSATION_ID: 'gen_ai.conversation.id',
  /** The error code of an `error` outcome. */
  ERROR_TYPE: 'error.type',
  /** `ok`, `error`, `denied` or `blocked`. */
  STATUS: 'dsh.tool.status',
  /** The stage that decided the outcome; for a denied call, the decision stage (`pre-execute`, `approval`, `guard`). */
  STAGE: 'dsh.outcome.stage',
  /** The tap, guard or plugin that decided, when one did. */
  BY: 'dsh.outcome.by',
  /** The outcome's code (denied, blocked and error outcomes). */
  CODE: 'dsh.outcome.code',
  /** The call's correlation token (sub-calls of `run_code` share their outer call's). */
  TOKEN: 'dsh.call.token',
  /** The outer call of a sub-call. */
  PARENT_CALL: 'dsh.call.parent',
  HOOK_NAME: 'dsh.hook.name',
  HOOK_EVENT: 'dsh.hook.event',
  HOOK_SOURCE: 'dsh.hook.source',
  HOOK_EXIT_CODE: 'dsh.hook.exit_code',
  HOOK_DECISION: 'dsh.hook.decision',
  /** The duration histogram, in seconds, from `tool/call` to `tool/result`. */
  DURATION_METRIC: 'dsh.tool.call.duration',
} as const;

/** Bucket boundaries (seconds) advised for the duration histogram: 5 ms to 10 min. */
export const durationBuckets: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
]);

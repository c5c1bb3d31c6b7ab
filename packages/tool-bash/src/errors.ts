/**
 * Stable codes of tool-bash. Outcome codes appear as `outcome.error.code` of a
 * `bash` call; `INVALID_OPTIONS` is thrown by the `toolBash` factory.
 * `TOOL_TIMEOUT` and `ABORTED` are core's own codes, reused so that a stopped
 * command reads the same whoever stopped it.
 */
export const BashErrorCode = {
  /** The command ran past its timeout and its process tree was killed; `data` holds the partial result. */
  TOOL_TIMEOUT: 'TOOL_TIMEOUT',
  /** The call's signal was aborted (user, step, timeout policy) and the tree was killed; `data` holds the partial result. */
  ABORTED: 'ABORTED',
  /** The command wrote more than `maxOutputBytes` and was killed; `data` holds the partial result. */
  OUTPUT_LIMIT_EXCEEDED: 'OUTPUT_LIMIT_EXCEEDED',
  /** The shell (or the sandbox launcher) could not be started at all. */
  SPAWN_FAILED: 'SPAWN_FAILED',
  /** Neither the session's working directory nor the configured start directory exists any more. */
  CWD_MISSING: 'CWD_MISSING',
  /** The body ran without a sandbox decision from the plugin's pre-execute tap (the tap was removed): refused. */
  SANDBOX_NOT_SELECTED: 'SANDBOX_NOT_SELECTED',
  /**
   * A sandboxed command created `.git` in a root that had none (hooks and
   * config there would run outside the sandbox): it was renamed aside and the
   * call failed; `data` holds the result and the paths.
   */
  GIT_DIR_PLANTED: 'GIT_DIR_PLANTED',
  /**
   * `sandbox.network` sends the network through the egress proxy, and the relay
   * that reaches it from inside the sandbox (socat) is not installed: the
   * command did not run (it never falls back to the host's network).
   */
  NETWORK_RELAY_MISSING: 'NETWORK_RELAY_MISSING',
  /**
   * The relay could not be started in the sandbox's network namespace (no
   * `nsenter`/`setpriv`, no right to enter the namespace, socat failed): the
   * sandbox was killed before the command ran.
   */
  NETWORK_RELAY_FAILED: 'NETWORK_RELAY_FAILED',
  /**
   * The host's sandbox policy (`host.sandboxPolicy`: permission rules,
   * Claude Code's `sandbox` settings) says something this sandbox cannot
   * enforce for the call (a glob too wide to expand, a path that is not
   * absolute, a part that failed): the command did not run.
   */
  SANDBOX_POLICY_UNENFORCEABLE: 'SANDBOX_POLICY_UNENFORCEABLE',
  /** `toolBash` was called with options it cannot use. */
  INVALID_OPTIONS: 'INVALID_OPTIONS',
} as const;

/** One of tool-bash's stable codes. */
export type BashErrorCode = (typeof BashErrorCode)[keyof typeof BashErrorCode];

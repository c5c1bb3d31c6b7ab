import { definePlugin, type Plugin } from '@deepseek-ai/dsh-core';
import { DeadlineResolver } from './deadline.js';
import { parseTimeoutPolicyOptions, type TimeoutPolicyOptions } from './options.js';
import { timeoutTap } from './timeout-tap.js';
import { version } from './version.js';

/** The plugin's name, also the name of its `tools/execute` tap and the `by` of its outcomes. */
export const timeoutPolicyName = 'timeout-policy';

/**
 * Per-call deadlines around dispatch. At the deadline the call's signal is
 * aborted; after `graceMs` the call settles with `TOOL_TIMEOUT` whether or
 * not the body did. Throws `INVALID_OPTIONS` (naming the field) for bad options.
 *
 * @example
 * ```ts
 * await host.use(timeoutPolicy({ defaultMs: 60_000, maxMs: 600_000, tools: { 'mcp__*': 30_000, watch: 'none' } }));
 * ```
 */
export function timeoutPolicy(options: TimeoutPolicyOptions = {}): Plugin {
  const resolved = parseTimeoutPolicyOptions(options);
  const resolver = new DeadlineResolver(resolved);
  return definePlugin({
    name: timeoutPolicyName,
    version,
    register(host) {
      host.hooks.execute.tap(
        { name: timeoutPolicyName, stage: resolved.stage },
        timeoutTap({ name: timeoutPolicyName, host, resolver, graceMs: resolved.graceMs }),
      );
    },
  });
}

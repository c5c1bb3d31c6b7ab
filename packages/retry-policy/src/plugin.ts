import { definePlugin, type Plugin } from '@deepseek-ai/dsh-core';
import { retryAttemptEvent } from './events.js';
import { parseRetryPolicyOptions, type RetryPolicyOptions } from './options.js';
import { retryTap } from './retry-tap.js';
import { version } from './version.js';

/** The plugin's name, also the name of its `tools/execute` tap. */
export const retryPolicyName = 'retry-policy';

/**
 * Retries idempotent tools on retryable error codes, with exponential
 * backoff and jitter, never past the deadline an outer timeout policy set.
 * Each failed attempt is logged as a `retry/attempt` event. Throws
 * `INVALID_OPTIONS` (naming the field) for bad options.
 *
 * @example
 * ```ts
 * await host.use(timeoutPolicy({ defaultMs: 30_000 }));
 * await host.use(retryPolicy({ maxAttempts: 4, retryOn: ['ECONNRESET', 'HTTP_503'] }));
 * ```
 */
export function retryPolicy(options: RetryPolicyOptions = {}): Plugin {
  const resolved = parseRetryPolicyOptions(options);
  return definePlugin({
    name: retryPolicyName,
    version,
    register(host) {
      host.events.define('retry/attempt', retryAttemptEvent);
      host.hooks.execute.tap(
        { name: retryPolicyName, stage: resolved.stage },
        retryTap({ name: retryPolicyName, host, options: resolved }),
      );
    },
  });
}

import { DshError, z } from '@deepseek-ai/dsh-core';
import { type DomainPolicy, domainPolicy } from '@deepseek-ai/dsh-egress';
import { BashErrorCode } from '../errors.js';

const noNul = z
  .string()
  .min(1)
  .refine((s) => !s.includes('\0'), 'must not contain NUL bytes');

/**
 * `sandbox.network` as an object: the network goes through the egress proxy,
 * and every new destination of a call is decided (denied list, allowed list,
 * else the host's approval provider).
 */
export const networkPolicySchema = z.strictObject({
  /** Destinations reachable without asking (`example.com`, `*.example.com`, either with `:port`, IP literals). */
  allowedDomains: z.array(z.string()).default([]),
  /** Destinations never reachable; they win over `allowedDomains`. */
  deniedDomains: z.array(z.string()).default([]),
  /**
   * Accepted for Claude Code's settings: a sandboxed command may always bind
   * its own loopback (its network namespace is its own), so this changes nothing.
   */
  allowLocalBinding: z.boolean().optional(),
  /** Restricted addresses (loopback, private ranges) the proxy may still connect to: `127.0.0.1`, `10.0.0.0/8`. */
  allowAddresses: z.array(z.string()).default([]),
  /** The relay run inside the sandbox (socat); looked up on `PATH` unless absolute. */
  relayPath: noNul.default('socat'),
  /** Where the proxy's sockets go: a fresh private directory under the OS temp dir by default. */
  socketDirectory: noNul.optional(),
});

/** The network policy with its defaults filled in. */
export type NetworkPolicyOptions = z.output<typeof networkPolicySchema>;

/**
 * The domain policy of `sandbox.network`, parsed once when the plugin is
 * made: a pattern that cannot match throws `INVALID_OPTIONS` naming the
 * entry (`sandbox.network.allowedDomains.2`), with the egress error as cause.
 */
export function parseNetworkDomains(network: NetworkPolicyOptions): DomainPolicy {
  for (const field of ['deniedDomains', 'allowedDomains'] as const) {
    network[field].forEach((pattern, i) => {
      try {
        domainPolicy({ [field]: [pattern] });
      } catch (error) {
        throw new DshError(BashErrorCode.INVALID_OPTIONS, `toolBash: sandbox.network.${field}.${i}: ${(error as Error).message}`, {
          cause: error,
        });
      }
    });
  }
  return domainPolicy({ allowedDomains: network.allowedDomains, deniedDomains: network.deniedDomains });
}

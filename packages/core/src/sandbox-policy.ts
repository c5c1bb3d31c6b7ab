import { DshError, ErrorCode } from './errors.js';

/**
 * Network settings a part of the sandbox policy may carry (Claude Code's
 * `sandbox.network`). Lists join across parts; a flag that widens access
 * holds only when every part that sets it says so; a port is the last
 * part's that sets it.
 */
export interface SandboxNetworkPart {
  readonly allowedDomains?: readonly string[];
  readonly deniedDomains?: readonly string[];
  /** Only the managed part's `allowedDomains` count (a managed settings file set it). */
  readonly allowManagedDomainsOnly?: boolean;
  /** The managed part's own allowed domains, kept apart for `allowManagedDomainsOnly`. */
  readonly managedAllowedDomains?: readonly string[];
  readonly allowLocalBinding?: boolean;
  readonly allowUnixSockets?: readonly string[];
  readonly allowAllUnixSockets?: boolean;
  readonly httpProxyPort?: number;
  readonly socksProxyPort?: number;
}

/**
 * One plugin's share of what sandboxed commands may touch. Paths are
 * absolute (a plugin resolves its own against `host.anchors`); a path may be
 * a glob (`*`, `**`, `?`, `[…]`, `{…}`), which the sandbox expands when a
 * command runs.
 */
export interface SandboxPolicyPart {
  /** Paths no sandboxed command may read: hidden (an empty file or directory in their place). */
  readonly hidden?: readonly string[];
  /** Paths no sandboxed command may change, even inside a writable root. */
  readonly readOnly?: readonly string[];
  /** Paths sandboxed commands may write besides the sandbox's own roots. */
  readonly writable?: readonly string[];
  readonly network?: SandboxNetworkPart;
}

/** The merged network settings: every list present, flags and ports resolved. */
export interface SandboxNetworkPolicy {
  readonly allowedDomains: readonly string[];
  readonly deniedDomains: readonly string[];
  readonly allowManagedDomainsOnly: boolean;
  readonly managedAllowedDomains: readonly string[];
  /** Unset when no part says; the sandbox then keeps its own default. */
  readonly allowLocalBinding?: boolean;
  readonly allowUnixSockets: readonly string[];
  readonly allowAllUnixSockets?: boolean;
  readonly httpProxyPort?: number;
  readonly socksProxyPort?: number;
}

/** Every part merged: what a sandbox applies to the next command. Frozen. */
export interface MergedSandboxPolicy {
  /** Rises by one whenever a part is added, removed or says it changed: cache by it. */
  readonly version: number;
  readonly hidden: readonly string[];
  readonly readOnly: readonly string[];
  readonly writable: readonly string[];
  readonly network: SandboxNetworkPolicy;
  /** The names of the parts merged, in the order they were contributed. */
  readonly sources: readonly string[];
}

/**
 * `host.sandboxPolicy`: the channel through which policy plugins
 * (permissions) tell sandboxes (tool-bash) what commands may touch, without
 * importing each other. Nothing here runs per call: a host whose plugins
 * never contribute pays nothing, and `current()` merges only after a change.
 */
export interface HostSandboxPolicy {
  /**
   * Adds a named part, read by calling `part` whenever the policy is merged
   * again; returns the function that removes it. A second part of the same
   * name is refused (`DUPLICATE_SANDBOX_POLICY`).
   */
  contribute(name: string, part: () => SandboxPolicyPart): () => void;
  /** Says that a part's answer changed (its settings were reloaded): the next `current()` merges again. */
  changed(): void;
  /** The merged policy; the same object until something changes. A part that throws is a `DshError` (`SANDBOX_POLICY_FAILED`). */
  current(): MergedSandboxPolicy;
}

const emptyNetwork: SandboxNetworkPolicy = Object.freeze({
  allowedDomains: Object.freeze([]),
  deniedDomains: Object.freeze([]),
  allowManagedDomainsOnly: false,
  managedAllowedDomains: Object.freeze([]),
  allowUnixSockets: Object.freeze([]),
});

/** Creates the channel a host exposes as `host.sandboxPolicy`. */
export function createSandboxPolicy(): HostSandboxPolicy {
  const parts = new Map<string, () => SandboxPolicyPart>();
  let version = 0;
  let cached: MergedSandboxPolicy | undefined;
  const bump = (): void => {
    version += 1;
    cached = undefined;
  };
  return Object.freeze({
    contribute(name: string, part: () => SandboxPolicyPart): () => void {
      if (typeof name !== 'string' || name === '' || typeof part !== 'function') {
        throw new DshError(ErrorCode.INVALID_OPTIONS, 'sandboxPolicy.contribute needs a name and a function returning the part');
      }
      if (parts.has(name))
        throw new DshError(ErrorCode.DUPLICATE_SANDBOX_POLICY, `a sandbox policy part named "${name}" is already contributed`);
      parts.set(name, part);
      bump();
      return () => {
        if (parts.get(name) !== part) return;
        parts.delete(name);
        bump();
      };
    },
    changed: bump,
    current(): MergedSandboxPolicy {
      cached ??= merge(version, parts);
      return cached;
    },
  });
}

function merge(version: number, parts: ReadonlyMap<string, () => SandboxPolicyPart>): MergedSandboxPolicy {
  const hidden = new Set<string>();
  const readOnly = new Set<string>();
  const writable = new Set<string>();
  const allowed = new Set<string>();
  const denied = new Set<string>();
  const managed = new Set<string>();
  const sockets = new Set<string>();
  let managedOnly = false;
  let localBinding: boolean | undefined;
  let allSockets: boolean | undefined;
  let httpPort: number | undefined;
  let socksPort: number | undefined;
  for (const [name, read] of parts) {
    let part: SandboxPolicyPart;
    try {
      part = read();
    } catch (error) {
      // A part that cannot say what it hides must not be merged as if it hid nothing.
      throw new DshError(
        ErrorCode.SANDBOX_POLICY_FAILED,
        `the sandbox policy part "${name}" failed: ${(error as Error)?.message ?? String(error)}`,
        {
          cause: error,
        },
      );
    }
    for (const p of part.hidden ?? []) hidden.add(p);
    for (const p of part.readOnly ?? []) readOnly.add(p);
    for (const p of part.writable ?? []) writable.add(p);
    const n = part.network;
    if (n === undefined) continue;
    for (const d of n.allowedDomains ?? []) allowed.add(d);
    for (const d of n.deniedDomains ?? []) denied.add(d);
    for (const d of n.managedAllowedDomains ?? []) managed.add(d);
    for (const s of n.allowUnixSockets ?? []) sockets.add(s);
    if (n.allowManagedDomainsOnly === true) managedOnly = true;
    if (n.allowLocalBinding !== undefined) localBinding = (localBinding ?? true) && n.allowLocalBinding;
    if (n.allowAllUnixSockets !== undefined) allSockets = (allSockets ?? true) && n.allowAllUnixSockets;
    if (n.httpProxyPort !== undefined) httpPort = n.httpProxyPort;
    if (n.socksProxyPort !== undefined) socksPort = n.socksProxyPort;
  }
  const network: SandboxNetworkPolicy =
    parts.size === 0
      ? emptyNetwork
      : Object.freeze({
          allowedDomains: Object.freeze([...allowed]),
          deniedDomains: Object.freeze([...denied]),
          allowManagedDomainsOnly: managedOnly,
          managedAllowedDomains: Object.freeze([...managed]),
          allowUnixSockets: Object.freeze([...sockets]),
          ...(localBinding === undefined ? {} : { allowLocalBinding: localBinding }),
          ...(allSockets === undefined ? {} : { allowAllUnixSockets: allSockets }),
          ...(httpPort === undefined ? {} : { httpProxyPort: httpPort }),
          ...(socksPort === undefined ? {} : { socksProxyPort: socksPort }),
        });
  return Object.freeze({
    version,
    hidden: Object.freeze([...hidden]),
    readOnly: Object.freeze([...readOnly]),
    writable: Object.freeze([...writable]),
    network,
    sources: Object.freeze([...parts.keys()]),
  });
}

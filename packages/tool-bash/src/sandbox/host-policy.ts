import { realpathSync } from 'node:fs';
import { DshError, type HostSandboxPolicy, type MergedSandboxPolicy, ToolError } from '@deepseek-ai/dsh-core';
import { BashErrorCode } from '../errors.js';
import { DirectoryListings } from './directory-listings.js';
import { type CompiledGlob, compileGlob, type ExpandLimits, expandGlobs } from './glob-paths.js';
import type { SandboxPolicy } from './provider.js';

/** The host policy's paths for one command, expanded against the disk as it is now. */
export interface HostPolicyPaths {
  readonly hidden: readonly string[];
  readonly readOnly: readonly string[];
  readonly writable: readonly string[];
  /** The policy version they were read from. */
  readonly version: number;
}

/** Why the host's policy cannot be applied to a command: it is then refused, never run with less. */
export class HostPolicyRefusal extends Error {
  override readonly name = 'HostPolicyRefusal';
}

interface Compiled {
  readonly version: number;
  readonly hidden: readonly CompiledGlob[];
  readonly readOnly: readonly CompiledGlob[];
  readonly writable: readonly CompiledGlob[];
}

const none: HostPolicyPaths = Object.freeze({ hidden: [], readOnly: [], writable: [], version: 0 });

/**
 * Reads `host.sandboxPolicy` before each command. The patterns are compiled
 * once per policy version; globs are expanded per call (a secret created
 * mid-session is hidden from the next command on), reading again only the
 * directories that changed since the last call (see `DirectoryListings`).
 * A host nobody contributed to costs one version compare.
 */
export class HostPolicyReader {
  readonly #channel: HostSandboxPolicy;
  readonly #limits: ExpandLimits;
  #compiled: Compiled | undefined;
  /** One per kind of path: each kind walks its own patterns, and a cache holds one walk. */
  readonly #listings = { hidden: new DirectoryListings(), 'read-only': new DirectoryListings(), writable: new DirectoryListings() };

  constructor(channel: HostSandboxPolicy, limits: ExpandLimits) {
    this.#channel = channel;
    this.#limits = limits;
  }

  /** The paths for the next command; throws {@link HostPolicyRefusal} when they cannot be enforced. */
  forCall(): HostPolicyPaths {
    let policy: MergedSandboxPolicy;
    try {
      policy = this.#channel.current();
    } catch (error) {
      throw new HostPolicyRefusal(DshError.isInstance(error) ? error.message : `the host's sandbox policy failed: ${String(error)}`);
    }
    if (policy.sources.length === 0) return none;
    if (this.#compiled?.version !== policy.version) this.#compiled = compile(policy);
    const c = this.#compiled;
    return Object.freeze({
      hidden: this.#expand(c.hidden, 'hidden'),
      readOnly: this.#expand(c.readOnly, 'read-only'),
      writable: existing(this.#expand(c.writable, 'writable')),
      version: c.version,
    });
  }

  #expand(globs: readonly CompiledGlob[], what: 'hidden' | 'read-only' | 'writable'): readonly string[] {
    if (globs.length === 0) return [];
    const expanded = expandGlobs(globs, this.#limits, this.#listings[what]);
    if (!expanded.ok) throw new HostPolicyRefusal(`the ${what} paths of the host's sandbox policy cannot be enforced: ${expanded.reason}`);
    return expanded.paths;
  }
}

function compile(policy: MergedSandboxPolicy): Compiled {
  const all = (paths: readonly string[], what: string): CompiledGlob[] =>
    paths.map((path) => {
      const glob = compileGlob(path);
      if (glob === undefined) {
        throw new HostPolicyRefusal(
          `the host's sandbox policy names a ${what} path that is not absolute: "${path}" (from ${policy.sources.join(', ')})`,
        );
      }
      return glob;
    });
  return {
    version: policy.version,
    hidden: all(policy.hidden, 'hidden'),
    readOnly: all(policy.readOnly, 'read-only'),
    writable: all(policy.writable, 'writable'),
  };
}

/** Writable paths by their real path; a missing one has nothing to bind. */
function existing(paths: readonly string[]): string[] {
  const real = new Set<string>();
  for (const path of paths) {
    try {
      real.add(realpathSync(path));
    } catch {
      // missing: nothing to make writable
    }
  }
  return [...real];
}

/**
 * `base` with the host policy's paths for this call added: hidden paths
 * masked, read-only ones re-bound read-only (and pinned), writable ones
 * bound writable. Without a sandbox nothing can be enforced: a notice says
 * what the policy asked for.
 */
export function withHostPolicy(base: SandboxPolicy, reader: HostPolicyReader, sandboxed: boolean, notices: string[]): SandboxPolicy {
  let paths: HostPolicyPaths;
  try {
    paths = reader.forCall();
  } catch (error) {
    if (!sandboxed || !(error instanceof HostPolicyRefusal)) throw error;
    throw new ToolError(BashErrorCode.SANDBOX_POLICY_UNENFORCEABLE, error.message);
  }
  if (paths === none) return base;
  if (!sandboxed) {
    if (paths.hidden.length + paths.readOnly.length > 0)
      notices.push("the host's sandbox policy (hidden and read-only paths) does not apply: this command ran without a sandbox");
    return base;
  }
  // A hidden path wins over a writable one: binding it writable would put the original back over its mask.
  const hidden = existing(paths.hidden);
  const writable = paths.writable.filter((p) => !base.writableRoots.includes(p) && !hidden.some((h) => p === h || p.startsWith(`${h}/`)));
  return {
    ...base,
    writableRoots: [...base.writableRoots, ...writable],
    readOnlyPaths: [...base.readOnlyPaths, ...paths.readOnly],
    denyReadPaths: [...(base.denyReadPaths ?? []), ...paths.hidden],
  };
}

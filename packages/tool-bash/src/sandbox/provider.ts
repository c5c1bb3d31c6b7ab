import type { ChildProcess } from 'node:child_process';

/**
 * What a sandbox provider is told about one command: where it may write,
 * what stays read-only, whether it may reach the network, where it starts.
 * Every path is absolute and already resolved (`realpath`).
 */
export interface SandboxPolicy {
  /** Directories the command may write (the workspace roots). Everything else is read-only. */
  readonly writableRoots: readonly string[];
  /**
   * Paths inside the writable roots that stay read-only (`.git` by default),
   * and cannot be moved away by renaming a directory above them. A missing
   * one cannot be created either, except a root's `.git` and `.husky`.
   */
  readonly readOnlyPaths: readonly string[];
  /** Paths outside the roots the command may read even though the sandbox hides them (the output directory, under `/tmp`). */
  readonly extraReadablePaths: readonly string[];
  /** Whether the command may use the host's network. */
  readonly network: boolean;
  /**
   * With `network: false`, the command's one way out: the egress proxy's
   * socket for this call, reached through a relay the provider starts in the
   * sandbox's network namespace. A provider that does not know it leaves the
   * network off.
   */
  readonly egress?: EgressRelay;
  /** The directory the command starts in. */
  readonly cwd: string;
  /**
   * Paths the command must not read (secrets: `~/.ssh`, `/etc/shadow`, …). A
   * provider hides those that exist (an empty directory or file in their place).
   */
  readonly denyReadPaths?: readonly string[];
  /** The most processes the command may run at once, where the provider can enforce it. */
  readonly maxProcesses?: number;
}

/** The call's egress socket on the host, and the relay program that forwards to it from the sandbox's loopback. */
export interface EgressRelay {
  readonly socketPath: string;
  /** The relay executable (socat), absolute. */
  readonly relayPath: string;
  /**
   * The network namespace where a relay already listens for this call
   * (made by the provider's `prepareEgress`): the sandbox joins it.
   */
  readonly namespace?: RelayNamespace;
}

/** A network namespace with the call's relay listening on its loopback, named by `/proc/<pid>/ns/…` paths. */
export interface RelayNamespace {
  readonly net: string;
  /** The user namespace that owns `net`, to enter first when this process is not root. */
  readonly user?: string;
  /** util-linux's `nsenter`, absolute. */
  readonly nsenter: string;
}

/** A relay started for one call before its sandbox: `release` ends it once the call is over. */
export interface PreparedEgress {
  readonly namespace: RelayNamespace;
  release(): void;
}

/** A program and its arguments, as `child_process.spawn` takes them. */
export interface SandboxCommand {
  readonly file: string;
  readonly args: readonly string[];
  /**
   * Data the launcher reads from extra descriptors (a seccomp filter, say):
   * each `fd` (4 or higher; 3 is the tool's) is a pipe that receives `data`
   * and is then closed.
   */
  readonly inputs?: readonly SandboxInput[];
  /** Descriptors (5 and 6) the launcher gets as pipes for `attach`, both ways. */
  readonly pipes?: readonly number[];
  /**
   * Runs on the host right after the spawn, with the launcher (its `stdio`
   * holds `pipes`), for a sandbox that must be finished from outside before
   * its command starts (bwrap's egress relay). A rejection ends the call with
   * that error: the provider must make sure the command did not run.
   */
  readonly attach?: (launcher: ChildProcess) => Promise<void>;
  /**
   * Called once the command and every process it started are gone (or it
   * never started): undoes what `wrap` left on the host for it (bwrap's
   * mount points for paths that must not be created).
   */
  readonly release?: () => void;
}

/** Bytes handed to the launcher on descriptor `fd` (see `SandboxCommand.inputs`). */
export interface SandboxInput {
  readonly fd: number;
  readonly data: Uint8Array;
}

/** The result of a provider's probe: usable, or why not. */
export type SandboxProbe =
  | { readonly ok: true; readonly detail?: string }
  | {
      readonly ok: false;
      readonly reason: string;
      /**
       * `'paths'` when the sandbox works here but not with the policy's paths
       * (a file of the workspace it cannot mount): no fallback applies then,
       * and every call is refused with the reason, which names the file.
       * `'timeout'` when the probe did not finish in time (a starved machine):
       * the call that waited for it gets the fallback, and the next call
       * probes again.
       */
      readonly cause?: 'paths' | 'timeout';
    };

/**
 * An OS sandbox for shell commands, as a pure argv transform: the tool keeps
 * spawning, capturing and killing the process itself. Implement this to add
 * another sandbox (a container runtime, Landlock helper, …) and pass the
 * object as `sandbox.provider`.
 */
export interface SandboxProvider {
  /** A short name, logged with every call (`bwrap`, `none`). */
  readonly name: string;
  /**
   * True when the whole process tree dies with the process the tool spawned
   * (a PID namespace). The tool then gives processes inside a grace period by
   * signalling them directly, and never signals the launcher before SIGKILL.
   */
  readonly containsProcessTree: boolean;
  /**
   * Checks once, at plugin start, with a real run, that the sandbox works
   * for this policy. Must not throw: a failure is `{ ok: false, reason }`.
   */
  probe(policy: SandboxPolicy): Promise<SandboxProbe>;
  /** Wraps `command` so that it runs inside the sandbox described by `policy`. */
  wrap(command: SandboxCommand, policy: SandboxPolicy): SandboxCommand;
  /**
   * Starts the call's network relay ahead of `wrap` (the tool calls it for a
   * policy with `egress`, and passes the namespace on in `egress.namespace`).
   * Rejects with `NETWORK_RELAY_FAILED` when it cannot; the command does not run then.
   */
  prepareEgress?(egress: EgressRelay): Promise<PreparedEgress>;
  /** Variables to set in the command's environment inside this sandbox (`TMPDIR`, say). */
  environment?(policy: SandboxPolicy): Readonly<Record<string, string>>;
}

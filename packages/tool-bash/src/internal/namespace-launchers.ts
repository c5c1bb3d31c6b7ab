import { type ChildProcess, spawn } from 'node:child_process';
import type { SandboxCommand } from '../sandbox/provider.js';
import { inPidNamespace, type PidNamespaceSupport } from './pid-namespace.js';
import { callScript, claimLauncher, idleLauncher, launcherPipes } from './prepared-launchers.js';

/**
 * An unsandboxed call's PID namespace, made ahead of the call: `unshare`, its
 * init, and under it a `/bin/sh -s` waiting on stdin for the call's script
 * (the same script as a cgroup launcher's), which sets up descriptors, working
 * directory and environment and execs the command. Starting `unshare` and the
 * init costs tens of ms; made in the background, it is off the call's path.
 */
export interface NamespaceLauncher {
  readonly child: ChildProcess;
  /** Hands the call to the launcher: it execs `command` in `cwd` with exactly `env`. */
  start(command: SandboxCommand, cwd: string, env: Readonly<Record<string, string>>, reportChannel: boolean): void;
}

/** The init's report descriptor in a launcher: the one after every descriptor a cgroup launcher has (report, input, pipes). */
export const namespaceLauncherStatusFd = Math.max(...launcherPipes) + 1;

/** One spare launcher, made again in the background each time one is taken. */
class NamespaceLauncherPool {
  readonly #support: PidNamespaceSupport & { ok: true };
  readonly #graceMs: number;
  #spare: NamespaceLauncher | undefined;
  #preparing = false;

  constructor(support: PidNamespaceSupport & { ok: true }, graceMs: number) {
    this.#support = support;
    this.#graceMs = graceMs;
  }

  /** A launcher ready for a call, or undefined (the first call, or back to back: then one is prepared for the next). */
  take(): NamespaceLauncher | undefined {
    const spare = this.#spare;
    this.#spare = undefined;
    this.#refill();
    if (spare === undefined || spare.child.exitCode !== null || spare.child.signalCode !== null) return undefined;
    claimLauncher(spare.child);
    return spare;
  }

  #refill(): void {
    if (this.#spare !== undefined || this.#preparing) return;
    this.#preparing = true;
    setImmediate(() => {
      this.#preparing = false;
      const launcher = prepare(this.#support, this.#graceMs);
      if (launcher === undefined) return;
      this.#spare = launcher;
      launcher.child.once('exit', () => {
        if (this.#spare === launcher) this.#spare = undefined;
      });
    });
  }
}

/** One pool per `unshare`, init and grace period (the grace is the init's, fixed when it starts). */
const pools = new Map<string, NamespaceLauncherPool>();

/** The launcher pool for calls with this support and grace period. */
export function namespaceLaunchers(support: PidNamespaceSupport & { ok: true }, graceMs: number): NamespaceLauncherPool {
  const key = `${support.unshare}\0${support.perl}\0${support.setpriv}\0${graceMs}`;
  let pool = pools.get(key);
  if (pool === undefined) {
    pool = new NamespaceLauncherPool(support, graceMs);
    pools.set(key, pool);
  }
  return pool;
}

function prepare(support: PidNamespaceSupport & { ok: true }, graceMs: number): NamespaceLauncher | undefined {
  const command = inPidNamespace({ file: '/bin/sh', args: ['-s'] }, support, namespaceLauncherStatusFd, graceMs);
  let child: ChildProcess;
  try {
    child = spawn(command.file, [...command.args], {
      cwd: '/',
      detached: true,
      stdio: Array.from({ length: namespaceLauncherStatusFd + 1 }, () => 'pipe' as const),
      env: {},
      windowsHide: true,
    });
  } catch {
    return undefined;
  }
  child.once('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  // Idle, it must not keep the host alive; at the host's exit its stdin closes and it exits.
  idleLauncher(child);
  return {
    child,
    start(command, cwd, env, reportChannel) {
      child.stdin?.end(callScript(command, cwd, env, reportChannel));
    },
  };
}

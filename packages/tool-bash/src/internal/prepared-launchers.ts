import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import type { Socket } from 'node:net';
import { delimiter, isAbsolute, join } from 'node:path';
import type { SandboxCommand } from '../sandbox/provider.js';
import type { CallCgroup, CgroupFactory, CgroupLimits } from './cgroups.js';
import { shellQuote } from './shell.js';

/**
 * A `/bin/sh` spawned ahead of a call, already inside that call's fresh
 * cgroup: the kernel's migration into the cgroup (an RCU grace period, several
 * ms on a loaded machine) happened in the background. It waits on stdin for a
 * script that sets up the call (stdin from `/dev/null`, descriptors, working
 * directory, environment) and execs the command, so every process of the
 * call is born inside the cgroup.
 */
export interface PreparedLauncher {
  readonly child: ChildProcess;
  readonly cgroup: CallCgroup;
  /** Hands the call to the launcher: it execs `command` in `cwd` with exactly `env`. */
  start(command: SandboxCommand, cwd: string, env: Readonly<Record<string, string>>, reportChannel: boolean): void;
}

/**
 * The descriptors every launcher has: stdin (the script), stdout, stderr, fd 3 (the report), fd 4 (a
 * launcher input), fds 5 and 6 (`SandboxCommand.pipes`).
 */
const launcherStdio = ['pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'] as const;

/** The descriptors a launcher holds for `SandboxCommand.pipes`. */
export const launcherPipes: readonly number[] = [5, 6];

/**
 * What a launcher (`sh -s <procs files…>`, reading its commands from stdin as
 * they come) is told first: join the cgroups, and, should the shell exit
 * before a call took it (the host closed the pipe, or died), move back to the
 * parent cgroups and remove its own, so an unused launcher leaves nothing
 * behind. A call's script clears that trap and ends in `exec`.
 */
const launcherPrelude = [
  `trap 'for f; do d=\${f%/cgroup.procs}; echo 0 >"\${d%/*}/cgroup.procs"; rmdir "$d"; done 2>/dev/null' EXIT`,
  'for f; do echo 0 >"$f" || exit 125; done',
  '',
].join('\n');

/**
 * One prepared launcher per kind of call (killable or limits-only cgroup),
 * made again in the background each time one is taken. A call that finds none
 * ready (the first of its kind, or back to back faster than the kernel
 * migrates) makes its cgroup the old way.
 */
export class LauncherPool {
  readonly #factory: CgroupFactory;
  readonly #limits: CgroupLimits;
  readonly #name: () => string;
  readonly #spare = new Map<boolean, PreparedLauncher>();
  readonly #preparing = new Set<boolean>();
  #closed = false;

  /** `name` gives each cgroup a fresh name. */
  constructor(factory: CgroupFactory, limits: CgroupLimits, name: () => string) {
    this.#factory = factory;
    this.#limits = limits;
    this.#name = name;
  }

  /**
   * A launcher already inside its cgroup for a call of this kind, or undefined
   * (then a new one is prepared for the next call).
   */
  take(kill: boolean): PreparedLauncher | undefined {
    if (this.#closed) return undefined;
    const spare = this.#spare.get(kill);
    if (spare !== undefined && spare.child.exitCode === null && spare.child.signalCode === null && joined(spare)) {
      this.#spare.delete(kill);
      claimLauncher(spare.child);
      this.#refill(kill);
      return spare;
    }
    this.#refill(kill);
    return undefined;
  }

  /** Prepares one launcher of this kind in the background, unless one is there or under way. */
  #refill(kill: boolean): void {
    if (this.#spare.has(kill) || this.#preparing.has(kill)) return;
    this.#preparing.add(kill);
    setImmediate(() => {
      this.#preparing.delete(kill);
      if (this.#closed) return;
      const launcher = prepare(this.#factory, this.#limits, this.#name(), kill);
      if (launcher === undefined) return;
      this.#spare.set(kill, launcher);
      launcher.child.once('exit', () => {
        // Killed while idle: it removed nothing, so release its cgroup; the next take prepares another.
        if (this.#spare.get(kill) === launcher) this.#spare.delete(kill);
      });
    });
  }

  /**
   * Stops preparing and lets the spare launchers go: each reads the end of its stdin, moves back
   * to the parent cgroups and removes its own (its prelude's trap). Settles once they have exited
   * and their cgroups are gone.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const spares = [...this.#spare.values()];
    this.#spare.clear();
    await Promise.all(
      spares.map(async (launcher) => {
        const { child } = launcher;
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          // Held while it winds down, so a host that awaits close() sees it gone.
          claimLauncher(child);
          child.stdin?.end();
          await exited;
        }
        await launcher.cgroup.release();
      }),
    );
  }
}

/** Whether the launcher has joined every cgroup of its call (one read of a small file). */
function joined(launcher: PreparedLauncher): boolean {
  return launcher.child.pid !== undefined && launcher.cgroup.members().includes(launcher.child.pid);
}

function prepare(factory: CgroupFactory, limits: CgroupLimits, name: string, kill: boolean): PreparedLauncher | undefined {
  const cgroup = factory.create(name, limits, kill);
  if (cgroup === undefined) return undefined;
  let child: ChildProcess;
  try {
    child = spawn('/bin/sh', ['-s', ...cgroup.procsFiles], {
      detached: true,
      stdio: [...launcherStdio],
      env: {},
      windowsHide: true,
    });
  } catch {
    void cgroup.release();
    return undefined;
  }
  child.once('error', () => void cgroup.release());
  (child.stdin as NonNullable<ChildProcess['stdin']>).on('error', () => undefined);
  child.stdin?.write(launcherPrelude);
  // An idle launcher must not keep the host process alive; the call that takes it holds it again.
  idleLauncher(child);
  let taken = false;
  child.once('exit', () => {
    if (!taken) void cgroup.release();
  });
  return {
    child,
    cgroup,
    start(command, cwd, env, reportChannel) {
      taken = true;
      child.stdin?.end(callScript(command, cwd, env, reportChannel));
    },
  };
}

/**
 * The command as a launcher can run it, or undefined when it cannot: every
 * variable name must be one sh can export, inputs must use fd 4 only, and the
 * program must be found (as a fresh spawn would look it up on `env.PATH`), so
 * a missing one still fails the way a spawn does (`SPAWN_FAILED`), not with
 * the launcher's exit code 127.
 */
export function launcherCommand(command: SandboxCommand, env: Readonly<Record<string, string>>): SandboxCommand | undefined {
  if (!(command.inputs ?? []).every((input) => input.fd === 4)) return undefined;
  if (!(command.pipes ?? []).every((fd) => launcherPipes.includes(fd))) return undefined;
  if (!Object.keys(env).every((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))) return undefined;
  const file = executable(command.file, env.PATH ?? '');
  return file === undefined ? undefined : { ...command, file };
}

/** Where `file` resolves on `path` (absolute or relative paths as they are); cached, as the answer rarely changes. */
function executable(file: string, path: string): string | undefined {
  const key = `${file}\0${path}`;
  const cached = resolved.get(key);
  if (cached !== undefined && runnable(cached)) return cached;
  const found = file.includes('/')
    ? runnable(file)
      ? file
      : undefined
    : path
        .split(delimiter)
        .filter((dir) => isAbsolute(dir))
        .map((dir) => join(dir, file))
        .find(runnable);
  if (found !== undefined) resolved.set(key, found);
  return found;
}

const resolved = new Map<string, string>();

function runnable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The script one call hands its launcher: the exact state a fresh spawn would give, then the command. */
export function callScript(command: SandboxCommand, cwd: string, env: Readonly<Record<string, string>>, reportChannel: boolean): string {
  const closeInputs = (command.inputs ?? []).some((input) => input.fd === 4) ? '' : ' 4<&-';
  const closePipes = launcherPipes
    .filter((fd) => !(command.pipes ?? []).includes(fd))
    .map((fd) => ` ${fd}>&-`)
    .join('');
  // One compound command: sh reads all of it before the first line takes stdin away.
  return [
    '{ trap - EXIT',
    // sh may hold a descriptor of its own in 7–9 (seen in tests); a fresh spawn has none there.
    `exec </dev/null${reportChannel ? '' : ' 3>&-'}${closeInputs}${closePipes} 7>&- 8>&- 9>&-`,
    `cd -- ${shellQuote(cwd)} || exit 126`,
    // sh exports the working directory it was started in; a fresh spawn has only `env`.
    'unset PWD OLDPWD',
    ...Object.entries(env).map(([name, value]) => `export ${name}=${shellQuote(value)}`),
    `exec ${[command.file, ...command.args].map(shellQuote).join(' ')}`,
    '}',
    '',
  ].join('\n');
}

/** Descriptors of a child process that can be unref'd (its pipes). */
function pipesOf(child: ChildProcess): Socket[] {
  return child.stdio.filter((s): s is Socket => s !== null && typeof (s as Socket).unref === 'function') as Socket[];
}

/** An idle launcher does not keep the host process alive. */
export function idleLauncher(child: ChildProcess): void {
  child.unref();
  for (const pipe of pipesOf(child)) pipe.unref();
}

/** A launcher taken by a call holds the host process again. */
export function claimLauncher(child: ChildProcess): void {
  child.ref();
  for (const pipe of pipesOf(child)) pipe.ref();
}

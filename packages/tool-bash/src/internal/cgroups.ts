import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendSignal } from '../processes.js';
import { hostOwner, ownerGone } from './host-owner.js';

/** Limits a per-call cgroup may carry. */
export interface CgroupLimits {
  readonly processes: number | undefined;
  readonly memoryBytes: number | undefined;
  /**
   * The call's processes share the CPU as one ordinary process would: a
   * cgroup of their own in the `cpu` controller, left at its default weight.
   */
  readonly cpuAsOneProcess: boolean;
}

/** The limits a call's cgroups actually carry. */
export type CarriedLimits = { -readonly [K in keyof CgroupLimits]?: Exclude<CgroupLimits[K], undefined | false> };

type Controller = 'pids' | 'memory' | 'cpu';

/** Per limit: its controller and the files (v2, v1) its value is written to; none for cpu, whose default weight is the point. */
const controls = {
  processes: { controller: 'pids', v2File: 'pids.max', v1File: 'pids.max' },
  memoryBytes: { controller: 'memory', v2File: 'memory.max', v1File: 'memory.limit_in_bytes' },
  cpuAsOneProcess: { controller: 'cpu', v2File: undefined, v1File: undefined },
} as const satisfies Record<keyof CgroupLimits, { controller: Controller; v2File: string | undefined; v1File: string | undefined }>;

const limitKeys = Object.keys(controls) as (keyof CgroupLimits)[];

/** Where each piece of cgroup support lives on this host (found once, at plugin start). */
interface Layout {
  /** A cgroup v2 directory we may create children in, whose children have `cgroup.kill`. */
  readonly v2?: string;
  /** Controllers enabled for `v2`'s children. */
  readonly v2Controllers: ReadonlySet<string>;
  /** cgroup v1 directories (ours) of the `pids`, `memory` and `cpu` hierarchies, when writable. */
  readonly v1: { readonly [C in Controller]?: string };
}

/** The cgroups of one call: join them (write `0` into each `procs` file), then ask them who is left. */
export interface CallCgroup {
  /** `cgroup.procs` files the call's first process writes `0` into, joining every cgroup of the call. */
  readonly procsFiles: readonly string[];
  /** True when a cgroup v2 with `cgroup.kill` holds the call: nothing in it can escape. */
  readonly killable: boolean;
  /** The limits actually set. */
  readonly limits: Readonly<CarriedLimits>;
  /** Live members (pids as this process sees them). */
  members(): number[];
  /** Whether anything is left (cheaper than `members`). */
  populated(): boolean;
  /** Kills every member at once (`cgroup.kill`); false where there is none. */
  kill(): boolean;
  /**
   * Removes the directories. Anything still in them belongs to a call that is
   * over, so it is killed first (`cgroup.kill`, or SIGKILL to each member of a
   * v1 cgroup); resolves true once they are gone, false when a member outlived
   * the wait (the removal is then retried in the background and at process exit).
   */
  release(): Promise<boolean>;
}

/**
 * Creates one cgroup per call where the host allows it: a cgroup v2 child of
 * this process's own cgroup (root, or a delegated subtree), killed whole with
 * `cgroup.kill`; `pids.max`/`memory.max` and a CPU group of its own where
 * those controllers are enabled there, else in this process's cgroup v1
 * `pids`/`memory`/`cpu` hierarchies.
 */
export class CgroupFactory {
  readonly #layout: Layout;

  private constructor(layout: Layout) {
    this.#layout = layout;
  }

  /** The host's support, or undefined when no cgroup can be created here. */
  static detect(): CgroupFactory | undefined {
    let mounts: string;
    let own: string;
    try {
      mounts = readFileSync('/proc/self/mountinfo', 'utf8');
      own = readFileSync('/proc/self/cgroup', 'utf8');
    } catch {
      return undefined;
    }
    const v2 = usable(directoryOf(mounts, own, 'cgroup2', undefined), true);
    const v1: { [C in Controller]?: string } = {};
    for (const controller of ['pids', 'memory', 'cpu'] as const) {
      const dir = usable(directoryOf(mounts, own, 'cgroup', controller), false);
      if (dir !== undefined) v1[controller] = dir;
    }
    const layout: Layout = {
      ...(v2 === undefined ? {} : { v2 }),
      v2Controllers: v2 === undefined ? new Set() : enableControllers(v2, ['pids', 'memory', 'cpu']),
      v1,
    };
    const v1Dirs = Object.values(layout.v1);
    if (layout.v2 === undefined && v1Dirs.length === 0) return undefined;
    sweepAbandoned([...(layout.v2 === undefined ? [] : [layout.v2]), ...v1Dirs]);
    return new CgroupFactory(layout);
  }

  /** Whether calls can be killed whole through cgroup v2. */
  get killable(): boolean {
    return this.#layout.v2 !== undefined;
  }

  /** Whether this limit can be set. */
  canLimit(limit: keyof CgroupLimits): boolean {
    const { controller } = controls[limit];
    return this.#layout.v1[controller] !== undefined || this.#layout.v2Controllers.has(controller);
  }

  /**
   * The cgroups of one call, or undefined when none was needed or could be
   * made (the call then runs without). Joining a cgroup costs a kernel
   * migration per hierarchy, so a call joins as few as it needs: the v2 one
   * with `kill` or where its controllers carry a limit, and the v1 hierarchy
   * of each limit v2 cannot carry.
   */
  create(name: string, limits: CgroupLimits, kill: boolean): CallCgroup | undefined {
    retryPending();
    const l = this.#layout;
    const made: string[] = [];
    const set: CarriedLimits = {};
    const make = (parent: string): string => {
      const dir = join(parent, name);
      mkdirSync(dir);
      made.push(dir);
      return dir;
    };
    const wanted = (key: keyof CgroupLimits): boolean => limits[key] !== undefined && limits[key] !== false;
    const inV2 = (key: keyof CgroupLimits): boolean => wanted(key) && l.v2Controllers.has(controls[key].controller);
    let v2: string | undefined;
    try {
      v2 = l.v2 !== undefined && (kill || limitKeys.some(inV2)) ? make(l.v2) : undefined;
      for (const key of limitKeys) {
        if (!wanted(key)) continue;
        const { controller, v2File, v1File } = controls[key];
        const v1 = l.v1[controller];
        if (v2 !== undefined && inV2(key)) {
          if (v2File !== undefined) writeFileSync(join(v2, v2File), String(limits[key]));
        } else if (v1 !== undefined) {
          const dir = make(v1);
          if (v1File !== undefined) writeFileSync(join(dir, v1File), String(limits[key]));
        } else continue;
        Object.assign(set, { [key]: limits[key] });
      }
    } catch {
      for (const dir of made.reverse()) tryRemove(dir);
      return undefined;
    }
    if (made.length === 0) return undefined;
    return {
      procsFiles: made.map((dir) => join(dir, 'cgroup.procs')),
      killable: v2 !== undefined,
      limits: set,
      members: () => [...new Set(made.flatMap((dir) => pidsIn(dir)))],
      populated: () =>
        v2 === undefined ? made.some((dir) => pidsIn(dir).length > 0) : /^populated 1$/m.test(readOr(join(v2, 'cgroup.events'))),
      kill: () => {
        if (v2 === undefined) return false;
        try {
          writeFileSync(join(v2, 'cgroup.kill'), '1');
          return true;
        } catch {
          return false;
        }
      },
      release: () => releaseDirectories([...made].reverse()),
    };
  }
}

/** A fresh name for a call's cgroup: it names its owner, so a later host can tell when it was left behind. */
export function cgroupName(marker: string): string {
  return `dsh-bash-${hostOwner}-${marker}`;
}

/** `dsh-bash-<pid namespace>-<pid>-<marker>`. */
const ownedName = /^dsh-bash-(\d+)-(\d+)-[0-9a-z]+$/;

/**
 * Removes the empty call cgroups under `parents` whose owner is gone: a host
 * killed outright (SIGKILL, OOM) cannot remove its calls' cgroups. Only
 * owners of this pid namespace are judged (a pid of another one cannot be
 * looked up here); a cgroup with members, or of a live pid (or one reused),
 * is left; `rmdir` itself refuses a populated cgroup. Returns how many went.
 */
export function sweepAbandoned(parents: readonly string[]): number {
  let removed = 0;
  for (const parent of parents) {
    let names: string[];
    try {
      names = readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const found = ownedName.exec(name);
      if (found === null || !ownerGone(found[1] as string, Number(found[2]))) continue;
      try {
        rmdirSync(join(parent, name));
        removed += 1;
      } catch {
        // Populated, or gone already.
      }
    }
  }
  return removed;
}

/** This process's directory in the hierarchy of `fstype` (with `controller` for v1), from mountinfo and /proc/self/cgroup. */
function directoryOf(mounts: string, own: string, fstype: string, controller: string | undefined): string | undefined {
  for (const line of mounts.split('\n')) {
    const [left, right] = line.split(' - ');
    const fields = left?.split(' ') ?? [];
    const [type, , superOptions] = right?.split(' ') ?? [];
    if (type !== fstype) continue;
    if (controller !== undefined && !(superOptions ?? '').split(',').includes(controller)) continue;
    const root = fields[3] ?? '/';
    const mountPoint = fields[4];
    const path = own
      .split('\n')
      .map((entry) => entry.split(':'))
      .find(([, controllers]) =>
        controller === undefined ? controllers === '' : (controllers ?? '').split(',').includes(controller),
      )?.[2];
    if (mountPoint === undefined || path === undefined) return undefined;
    const relative = root === '/' ? path : path.startsWith(root) ? path.slice(root.length) : undefined;
    return relative === undefined ? undefined : resolve(mountPoint, `.${relative}`);
  }
  return undefined;
}

/**
 * `dir` when a child can be created (for v2, with `cgroup.kill`) and a
 * process can join it: a real `sh` joins a probe cgroup once, at plugin start.
 */
function usable(dir: string | undefined, needsKill: boolean): string | undefined {
  if (dir === undefined) return undefined;
  const probe = join(dir, `dsh-bash-probe-${randomBytes(6).toString('hex')}`);
  try {
    mkdirSync(probe);
  } catch {
    return undefined;
  }
  const ok =
    (!needsKill || existsSync(join(probe, 'cgroup.kill'))) &&
    spawnSync('/bin/sh', ['-c', 'echo 0 >"$1"', 'sh', join(probe, 'cgroup.procs')], { stdio: 'ignore', timeout: 10_000 }).status === 0;
  // The probe shell has exited; its cgroup may take a moment to empty.
  if (!tryRemove(probe)) void releaseDirectories([probe]);
  return ok ? dir : undefined;
}

/** The controllers children of `dir` get; tries to enable the missing ones (fails harmlessly where not allowed). */
function enableControllers(dir: string, wanted: readonly string[]): ReadonlySet<string> {
  const enabled = (): Set<string> => new Set(readOr(join(dir, 'cgroup.subtree_control')).trim().split(/\s+/));
  const now = enabled();
  const available = new Set(readOr(join(dir, 'cgroup.controllers')).trim().split(/\s+/));
  for (const controller of wanted) {
    if (now.has(controller) || !available.has(controller)) continue;
    try {
      writeFileSync(join(dir, 'cgroup.subtree_control'), `+${controller}`);
    } catch {
      // Not allowed here (processes in this cgroup, not delegated): no such limit.
    }
  }
  const after = enabled();
  return new Set(wanted.filter((c) => after.has(c)));
}

function pidsIn(dir: string): number[] {
  return readOr(join(dir, 'cgroup.procs'))
    .split('\n')
    .filter((line) => line !== '')
    .map(Number);
}

function readOr(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function tryRemove(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** Directories whose removal failed while members were still dying: retried in the background and at process exit. */
const pending = new Set<string>();
/** How long `release` waits for the members it killed before it leaves the rest to the background retry. */
const releaseWaitMs = 5_000;
const releasePollMs = 10;
let retryTimer: NodeJS.Timeout | undefined;
let exitHook = false;

function retryPending(): void {
  for (const dir of pending) if (tryRemove(dir)) pending.delete(dir);
}

/** Kills whatever is left in one of our call cgroups (its call is over): at once with `cgroup.kill`, else member by member. */
function killMembers(dir: string): void {
  try {
    writeFileSync(join(dir, 'cgroup.kill'), '1');
    return;
  } catch {
    // cgroup v1 (or an old kernel): signal each member.
  }
  for (const pid of pidsIn(dir)) sendSignal(pid, 'SIGKILL');
}

/** Removes `dirs` (children first), killing members that are still there, and waits a bounded time for them. */
export async function releaseDirectories(dirs: readonly string[]): Promise<boolean> {
  const deadline = performance.now() + releaseWaitMs;
  let left = [...dirs];
  for (;;) {
    left = left.filter((dir) => !tryRemove(dir));
    for (const dir of dirs) if (!left.includes(dir)) pending.delete(dir);
    if (left.length === 0) return true;
    for (const dir of left) {
      pending.add(dir);
      killMembers(dir);
    }
    if (performance.now() >= deadline) {
      keepRetrying();
      return false;
    }
    await sleep(releasePollMs);
  }
}

/** While anything is pending: a retry each second (not keeping the process alive), and one last try at exit. */
function keepRetrying(): void {
  if (!exitHook) {
    exitHook = true;
    process.once('exit', releasePendingAtExit);
  }
  if (retryTimer !== undefined) return;
  retryTimer = setInterval(() => {
    for (const dir of pending) killMembers(dir);
    retryPending();
    if (pending.size === 0) {
      clearInterval(retryTimer);
      retryTimer = undefined;
    }
  }, 1_000);
  retryTimer.unref();
}

/** At exit nothing asynchronous runs: kill, then retry the removal for a short, bounded while. */
function releasePendingAtExit(): void {
  const wait = new Int32Array(new SharedArrayBuffer(4));
  for (let round = 0; round < 50 && pending.size > 0; round += 1) {
    for (const dir of pending) killMembers(dir);
    retryPending();
    if (pending.size > 0) Atomics.wait(wait, 0, 0, 10);
  }
}

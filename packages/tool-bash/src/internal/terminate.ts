import { setTimeout as sleep } from 'node:timers/promises';
import { hasProc, liveGroupMembers, processesMatching, sendSignal } from '../processes.js';
import type { CallCgroup } from './cgroups.js';

/** The process tree of one command. */
export interface ProcessTree {
  /** The process the tool spawned; leader of its own process group. */
  readonly pid: number;
  /** A `NAME=value` entry in the environment of every process of the call (the escapee sweep looks for it). */
  readonly marker: string;
  /** True when every process dies with the leader (a PID namespace). */
  readonly containsProcessTree: boolean;
  /** Whether the leader has exited (and been reaped). */
  hasExited(): boolean;
  /** The call's own cgroup, when it has one: every process of the call, escaped or not. */
  readonly cgroup?: CallCgroup | undefined;
}

/** How the tree went. */
export interface Termination {
  /** True when SIGKILL was needed. */
  readonly escalated: boolean;
  /** Pids still alive at the end (empty unless something could not be killed, e.g. a process in `D` state). */
  readonly survivors: readonly number[];
}

const pollMs = 15;
const killWaitMs = 3_000;

/**
 * Stops a whole tree: SIGTERM to the group, to every process carrying the
 * call's marker and to every member of its cgroup, then, after `graceMs`,
 * SIGKILL to all of them (and `cgroup.kill`). Resolves once
 * the leader has exited and no live process of the group or with the marker
 * remains (zombies waiting for init do not count), or with the survivors.
 * With a PID namespace the launcher itself is spared SIGTERM, so processes
 * inside get their grace period; its death at SIGKILL takes the namespace.
 */
export async function terminateTree(tree: ProcessTree, graceMs: number): Promise<Termination> {
  // A pid of 0 or 1 would turn a group kill into "every process"; there is no tree without a real pid.
  if (!(tree.pid > 1)) return { escalated: false, survivors: [] };
  const proc = hasProc();
  const marked = (): number[] => [
    ...(proc ? processesMatching(tree.marker, { commandLine: false }).map((p) => p.pid) : []),
    ...(tree.cgroup?.members() ?? []),
  ];
  const alive = (): number[] => {
    const left = new Set([...liveGroupMembers(tree.pid), ...marked()]);
    if (!tree.hasExited()) left.add(tree.pid);
    return [...left];
  };
  if (!tree.containsProcessTree) sendSignal(-tree.pid, 'SIGTERM');
  for (const pid of marked()) if (!(tree.containsProcessTree && pid === tree.pid)) sendSignal(pid, 'SIGTERM');
  if (await until(() => alive().length === 0, graceMs)) return { escalated: false, survivors: [] };

  const kill = (): void => {
    tree.cgroup?.kill();
    sendSignal(-tree.pid, 'SIGKILL');
    for (const pid of alive()) sendSignal(pid, 'SIGKILL');
  };
  kill();
  if (await until(() => alive().length === 0, killWaitMs / 2)) return { escalated: true, survivors: [] };
  kill();
  await until(() => alive().length === 0, killWaitMs / 2);
  return { escalated: true, survivors: alive() };
}

/** Finds whether anything of the tree outlived its leader (a quick check after a normal exit). */
export function leftovers(tree: ProcessTree, sweep: boolean): boolean {
  if (!(tree.pid > 1)) return false;
  if (liveGroupMembers(tree.pid).length > 0 || tree.cgroup?.populated() === true) return true;
  return sweep && hasProc() && processesMatching(tree.marker, { commandLine: false }).length > 0;
}

async function until(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (;;) {
    if (done()) return true;
    if (performance.now() >= deadline) return false;
    await sleep(pollMs);
  }
}

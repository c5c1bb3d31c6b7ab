import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep, setImmediate as yieldToLoop } from 'node:timers/promises';
import { groupMayExist, hasProc, sendSignal } from '../processes.js';
import type { CallCgroup } from './cgroups.js';
import { groupMembersAsync, markedProcessesAsync, parseStat } from './proc-scan.js';

/** The process tree of one command. */
export interface ProcessTree {
  /** The process the tool spawned; leader of its own process group. */
  readonly pid: number;
  /** A `NAME=value` entry in the environment of every process of the call (the escapee sweep looks for it). */
  readonly marker: string;
  /** True when every process dies with the leader (a PID namespace). */
  readonly containsProcessTree: boolean;
  /**
   * True when the leader is `unshare` and the namespace's init is dsh's own
   * (`pid-namespace.ts`): it forwards SIGTERM to every process inside, and the
   * leader exits only once the namespace is empty.
   */
  readonly ownInit?: boolean;
  /** Whether the leader has exited (and been reaped). */
  hasExited(): boolean;
  /** The call's own cgroup, when it has one (every process of the call, escaped or not). */
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
/** How long a tree may take to die after a SIGKILL before it is sent again. */
const killWaitMs = 1_500;
/**
 * The same for a PID namespace: once its init got SIGKILL the kernel kills
 * everything inside and the launcher exits when the last one is gone, which
 * takes seconds for thousands of processes on a loaded machine. A bound for a
 * hang only: it is never reached unless the kernel cannot kill a process.
 */
const namespaceTeardownMs = 30_000;
/** Signals sent between two turns of the event loop when a cgroup lists thousands of members. */
const signalBatch = 256;
/** How long the SIGTERM round may spend finding which members the group's signal missed. */
const memberCheckMs = 250;

/** How one kind of tree is signalled and watched; none of them reads `/proc` synchronously. */
interface Strategy {
  /** How long to wait for the tree to die after each SIGKILL before sending it again (or giving up). */
  readonly killWaitMs: number;
  /** SIGTERM to everything that should get a grace period. */
  term(): Promise<void>;
  /** SIGKILL to the whole tree. */
  kill(): Promise<void>;
  /** True once nothing of the tree is alive. */
  gone(deadline: number): Promise<boolean>;
  /** What is still alive (after the last wait). */
  survivors(deadline: number): Promise<number[]>;
}

/**
 * Stops a whole tree: SIGTERM, then, after `graceMs`, SIGKILL, and resolves
 * once nothing of it is alive (zombies waiting for init do not count), or
 * with the survivors. How depends on what holds the tree:
 *
 * - a PID namespace (the sandbox): SIGTERM to the command's session inside
 *   (the process group of the namespace's init) and to the members of the
 *   call's cgroup, never to the launcher; SIGKILL to the namespace's init
 *   (the kernel then kills everything inside at once, fork loops included)
 *   and to the launcher. Watched through the launcher's exit: it exits only
 *   once the namespace is empty. A command the sandbox has not started yet
 *   (its deadline came first) is ended at once: no grace is owed to it.
 * - a cgroup v2 with `cgroup.kill`: the group and the members get SIGTERM,
 *   then `cgroup.kill`; watched through `cgroup.events`.
 * - neither: the group and the processes carrying the call's marker, found
 *   by an asynchronous scan of `/proc` bounded by the grace period.
 *
 * Nothing here blocks the event loop for more than one small read or a batch
 * of signals, whatever the number of processes.
 */
export async function terminateTree(tree: ProcessTree, graceMs: number): Promise<Termination> {
  // A pid of 0 or 1 would turn a group kill into "every process"; there is no tree without a real pid.
  if (!(tree.pid > 1)) return { escalated: false, survivors: [] };
  const strategy =
    tree.ownInit === true
      ? ownInitStrategy(tree)
      : tree.containsProcessTree
        ? namespaceStrategy(tree)
        : tree.cgroup?.killable === true
          ? cgroupStrategy(tree, tree.cgroup)
          : groupStrategy(tree);
  await strategy.term();
  if (await until(strategy, performance.now() + graceMs)) return { escalated: false, survivors: [] };
  await strategy.kill();
  if (await until(strategy, performance.now() + strategy.killWaitMs)) return { escalated: true, survivors: [] };
  await strategy.kill();
  if (await until(strategy, performance.now() + strategy.killWaitMs)) return { escalated: true, survivors: [] };
  return { escalated: true, survivors: await strategy.survivors(performance.now() + strategy.killWaitMs) };
}

/**
 * Whether anything of the tree outlived its leader (checked after a normal
 * exit). A namespace is empty once its launcher has exited; a cgroup says so
 * itself; otherwise the group is asked, and (with `sweep`) a bounded
 * asynchronous scan looks for the marker.
 */
export async function leftovers(tree: ProcessTree, sweep: boolean, budgetMs: number): Promise<boolean> {
  if (!(tree.pid > 1)) return false;
  if (tree.cgroup?.killable === true && tree.cgroup.populated()) return true;
  // A namespace is empty once its launcher exited; a cgroup (limits only) that still lists a member says otherwise.
  if (tree.containsProcessTree || tree.ownInit === true) return tree.cgroup?.populated() === true;
  const deadline = performance.now() + budgetMs;
  if (groupMayExist(tree.pid) && (!hasProc() || (await groupMembersAsync(tree.pid, { deadline })).pids.length > 0)) return true;
  return sweep && hasProc() && (await markedProcessesAsync(tree.marker, { deadline })).pids.length > 0;
}

function namespaceStrategy(tree: ProcessTree): Strategy {
  // The launcher's child is the namespace's init (bwrap's): read once, while the launcher still holds it.
  const init = tree.hasExited() ? undefined : namespaceInit(tree.pid);
  const initAlive = (): boolean => init !== undefined && isSameProcess(init);
  const cgroupMembers = (): number[] => (tree.cgroup?.members() ?? []).filter((pid) => pid !== tree.pid);
  const killAll = (): void => {
    // From outside, SIGKILL reaches a namespace's init whatever it handles, and its death empties the namespace.
    if (initAlive()) sendSignal((init as NamespaceInit).pid, 'SIGKILL');
    sendSignal(-tree.pid, 'SIGKILL');
    tree.cgroup?.kill();
  };
  return {
    killWaitMs: namespaceTeardownMs / 2,
    async term() {
      if (init === undefined || !commandStarted(init.pid)) {
        // The deadline came before the sandbox had started the command. A SIGTERM now can be
        // lost in bwrap's set-up (or orphan a namespace whose init is not yet bound to the
        // launcher's death), and the command would then run its whole grace period after its
        // deadline. Nothing inside has started, so nothing is owed a grace period: end it now.
        killAll();
        return;
      }
      // The command's session inside (bwrap --new-session makes init its leader); init itself ignores SIGTERM.
      const session = init.pgid > 1 && init.pgid !== tree.pid && initAlive() ? init.pgid : undefined;
      if (session !== undefined) sendSignal(-session, 'SIGTERM');
      const members = cgroupMembers();
      await signalAll(session === undefined ? members : await outsideGroup(members, session), 'SIGTERM');
    },
    async kill() {
      killAll();
    },
    // The launcher exits once the namespace is empty; the call's cgroup, where there is one, must say so too.
    gone: async () => tree.hasExited() && !initAlive() && tree.cgroup?.populated() !== true,
    survivors: async () => [...(tree.hasExited() ? [] : [tree.pid]), ...(initAlive() ? [(init as NamespaceInit).pid] : [])],
  };
}

/**
 * A namespace whose init is dsh's own: SIGTERM to that init, which passes it
 * to every process inside (escapees included); then SIGUSR2, on which it
 * exits (SIGKILL only if it did not), after which the kernel kills
 * everything inside and `unshare` exits once they are gone.
 * Before the init has forked the command its SIGTERM handler may not be set
 * (PID 1 ignores a signal it does not handle): nothing has run, so it is killed at once.
 */
function ownInitStrategy(tree: ProcessTree): Strategy {
  const init = tree.hasExited() ? undefined : namespaceInit(tree.pid);
  const initAlive = (): boolean => init !== undefined && isSameProcess(init);
  let kills = 0;
  // Once seen with a child the init keeps its handlers, even when its last child is gone.
  let handles = false;
  const ready = (): boolean => (handles ||= init !== undefined && initHandles(init));
  const killAll = (): void => {
    kills += 1;
    if (init !== undefined && initAlive() && ready()) {
      // The init's own exit reports the command's end; a SIGKILL is for an init that did not answer.
      sendSignal(init.pid, kills === 1 ? 'SIGUSR2' : 'SIGKILL');
      return;
    }
    // Nothing of the command runs yet: unshare first (it dies by the signal; a SIGKILLed init would make
    // it exit 1 with a message in the command's stderr), then the init (`--kill-child` would do it too).
    if (!tree.hasExited()) sendSignal(tree.pid, 'SIGKILL');
    if (init !== undefined && initAlive()) sendSignal(init.pid, 'SIGKILL');
  };
  return {
    killWaitMs: namespaceTeardownMs / 2,
    async term() {
      // Before its handlers are set the init (PID 1) would ignore SIGTERM; nothing has run, so nothing is owed a grace.
      if (init === undefined || !ready()) killAll();
      else sendSignal(init.pid, 'SIGTERM');
    },
    async kill() {
      killAll();
    },
    gone: async () => tree.hasExited() && tree.cgroup?.populated() !== true,
    survivors: async () => [...(tree.hasExited() ? [] : [tree.pid]), ...(initAlive() ? [(init as NamespaceInit).pid] : [])],
  };
}

/** Whether the init has set its handlers: it forks the command only after (before, PID 1 ignores what it gets). */
function initHandles(init: NamespaceInit): boolean {
  return firstChild(init.pid) !== undefined;
}

function cgroupStrategy(tree: ProcessTree, cgroup: CallCgroup): Strategy {
  return {
    killWaitMs,
    async term() {
      sendSignal(-tree.pid, 'SIGTERM');
      await signalAll(await outsideGroup(cgroup.members(), tree.pid), 'SIGTERM');
    },
    async kill() {
      cgroup.kill();
      sendSignal(-tree.pid, 'SIGKILL');
    },
    gone: async () => tree.hasExited() && !cgroup.populated(),
    survivors: async () => [...new Set([...(tree.hasExited() ? [] : [tree.pid]), ...cgroup.members()])],
  };
}

/** Best effort: the process group, and the marker found by a scan that never blocks and stops at its deadline. */
function groupStrategy(tree: ProcessTree): Strategy {
  const proc = hasProc();
  /** What is alive, and whether the scans saw every process (a cut-short scan proves nothing gone). */
  const alive = async (deadline: number): Promise<{ pids: number[]; complete: boolean }> => {
    const left = new Set<number>();
    let complete = true;
    if (proc) {
      const marked = await markedProcessesAsync(tree.marker, { deadline });
      for (const pid of marked.pids) left.add(pid);
      complete &&= marked.complete;
    }
    if (groupMayExist(tree.pid)) {
      if (proc) {
        const members = await groupMembersAsync(tree.pid, { deadline });
        for (const pid of members.pids) left.add(pid);
        complete &&= members.complete;
      } else left.add(tree.pid);
    }
    if (!tree.hasExited()) left.add(tree.pid);
    return { pids: [...left], complete };
  };
  return {
    killWaitMs,
    async term() {
      sendSignal(-tree.pid, 'SIGTERM');
      if (!proc) return;
      const marked = await markedProcessesAsync(tree.marker, { deadline: performance.now() + killWaitMs });
      await signalAll(await outsideGroup(marked.pids, tree.pid), 'SIGTERM');
    },
    async kill() {
      sendSignal(-tree.pid, 'SIGKILL');
      await signalAll((await alive(performance.now() + killWaitMs)).pids, 'SIGKILL');
    },
    gone: async (deadline) => {
      const left = await alive(deadline);
      return left.pids.length === 0 && left.complete;
    },
    survivors: async (deadline) => (await alive(deadline)).pids,
  };
}

interface NamespaceInit {
  readonly pid: number;
  readonly pgid: number;
  readonly start: string;
}

/**
 * Whether the namespace's init has started the command: its child has run
 * `exec` and is no longer bwrap. Before that, a SIGTERM can be lost (bwrap
 * sets up the child with signals of its own), so the command would start
 * after its deadline and run its whole grace period unsignalled.
 */
function commandStarted(init: number): boolean {
  const child = firstChild(init);
  if (child === undefined) return false;
  try {
    return readFileSync(`/proc/${child}/comm`, 'latin1').trim() !== 'bwrap';
  } catch {
    return false;
  }
}

/** The first child of `parent` (`/proc/<pid>/task/<pid>/children`, one small read), if it has one. */
function firstChild(parent: number): number | undefined {
  try {
    const pid = Number(readFileSync(`/proc/${parent}/task/${parent}/children`, 'latin1').trim().split(' ')[0]);
    return pid > 1 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The first child of `leader` (`/proc/<pid>/task/<pid>/children`, one small read), with what identifies it. */
function namespaceInit(leader: number): NamespaceInit | undefined {
  try {
    const pid = firstChild(leader);
    if (pid === undefined) return undefined;
    const stat = parseStat(readFileSync(`/proc/${pid}/stat`, 'latin1'));
    return stat === undefined ? undefined : { pid, pgid: stat.pgid, start: stat.start };
  } catch {
    return undefined;
  }
}

/** Whether `p` is still alive (not a zombie) and is the same process (its pid not reused). */
function isSameProcess(p: NamespaceInit): boolean {
  try {
    return parseStat(readFileSync(`/proc/${p.pid}/stat`, 'latin1'))?.start === p.start;
  } catch {
    return false;
  }
}

/**
 * The pids of `pids` outside process group `pgid`, which the group's SIGTERM
 * missed (a `setsid` child, say). The others got it already, and a second
 * SIGTERM can run a process's handler twice (a trap that cleans up, twice).
 * Read asynchronously in batches; past {@link memberCheckMs} (a fork loop's
 * thousands) the rest count as outside: signalled twice beats never signalled.
 */
async function outsideGroup(pids: readonly number[], pgid: number): Promise<number[]> {
  const deadline = performance.now() + memberCheckMs;
  const outside: number[] = [];
  for (let i = 0; i < pids.length; i += signalBatch) {
    const batch = pids.slice(i, i + signalBatch);
    if (performance.now() >= deadline) {
      outside.push(...batch);
      continue;
    }
    const groups = await Promise.all(batch.map((pid) => readFile(`/proc/${pid}/stat`, 'latin1').then(parseStat, () => undefined)));
    // An unreadable stat is a process already gone.
    batch.forEach((pid, j) => {
      const group = groups[j]?.pgid;
      if (group !== undefined && group !== pgid) outside.push(pid);
    });
  }
  return outside;
}

/** Signals every pid, a batch per turn of the event loop. */
async function signalAll(pids: readonly number[], signal: NodeJS.Signals): Promise<void> {
  for (let i = 0; i < pids.length; i += 1) {
    sendSignal(pids[i] as number, signal);
    if ((i + 1) % signalBatch === 0) await yieldToLoop();
  }
}

async function until(strategy: Strategy, deadline: number): Promise<boolean> {
  for (;;) {
    if (await strategy.gone(deadline)) return true;
    if (performance.now() >= deadline) return false;
    await sleep(pollMs);
  }
}

import { readdirSync, readFileSync } from 'node:fs';

/** Process groups started by this module that are still alive, killed when Node exits. */
const live = new Set<number>();
let hooked = false;

function killAllOnExit(): void {
  for (const pgid of live) killGroup(pgid, 'SIGKILL');
}

/** Remembers a group, so it is killed (SIGKILL) if the Node process exits first. */
export function trackGroup(pgid: number): void {
  live.add(pgid);
  if (!hooked) {
    hooked = true;
    process.once('exit', killAllOnExit);
  }
}

/** Forgets a group that is gone. */
export function untrackGroup(pgid: number): void {
  live.delete(pgid);
}

/** Signals every process of a group; false when the group is gone. */
export function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether any process of the group is still alive. On Linux, zombies (dead,
 * waiting for their new parent to reap them) do not count: they run nothing.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const members = liveMembers(pgid);
  return members === undefined || members.length > 0;
}

/** The pids of the group's processes that are not zombies, from /proc; `undefined` where there is no /proc. */
export function liveMembers(pgid: number): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') members.push(Number(entry));
  }
  return members;
}

import { readlinkSync } from 'node:fs';
import { processExists } from '@deepseek-ai/dsh-core';

/** This process's pid namespace (its inode number): a pid means something only within it. */
function pidNamespace(): string {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '0';
  } catch {
    return '0';
  }
}

const ownNamespace = pidNamespace();

/**
 * This process as the owner of what it leaves on the host (call cgroups,
 * private folders): `<pid namespace>-<pid>`, put in their names so that a
 * later host can tell when their owner was killed outright (no exit hook ran).
 */
export const hostOwner = `${ownNamespace}-${process.pid}`;

/**
 * Whether an owner read from a name (pid namespace, pid) is a process of this
 * namespace that is gone. Another namespace's pids cannot be looked up here,
 * so their things are never judged abandoned; nor are this process's own.
 */
export function ownerGone(namespace: string, pid: number): boolean {
  return namespace === ownNamespace && pid !== process.pid && !processExists(pid);
}

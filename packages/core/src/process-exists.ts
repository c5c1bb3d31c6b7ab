import { readFileSync } from 'node:fs';

/**
 * Whether a process with this pid still runs on this machine. A zombie (killed, not yet reaped by
 * its new parent, which for an orphan may be an init that reaps late or never) does not run: it
 * answers `kill(pid, 0)` but holds no lock and does no work. Only a positive integer names a
 * process: `kill(0, 0)` and `kill(-1, 0)` answer for a whole group (and a pid file read before it
 * was written gives `Number('')`, 0), so those, NaN and fractions are false.
 */
export function processExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name, which is in parentheses and may itself hold ") ".
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    // No /proc (not Linux) or the process just went: kill(0) already said it was there.
    return false;
  }
}

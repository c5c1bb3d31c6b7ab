import { readFileSync } from 'node:fs';

/** What `/proc/<pid>/stat`'s state letter means, in words for a message. */
const stateWords: Readonly<Record<string, string>> = {
  R: 'running',
  S: 'sleeping',
  D: 'waiting on the disk',
  T: 'stopped',
  t: 'stopped by a debugger',
  Z: 'exited, not yet reaped',
};

/**
 * What a process is doing right now, from Linux's `/proc`: its state and, when the
 * kernel shows it, the kernel function it waits in (`sleeping in anon_pipe_read`: a
 * hook that reads a stdin nobody closes). Said when a hook times out, so the
 * reason it hung is in its `hook/result`. Undefined where there is no `/proc` or
 * the process is gone. Reads two small files; only the timeout path calls it.
 */
export function describeProcess(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself hold ") ": the state follows the last one.
  const letter = stat.charAt(stat.lastIndexOf(')') + 2);
  const state = stateWords[letter] ?? `in state ${letter}`;
  const waitingIn = kernelWait(pid);
  return waitingIn === undefined || letter === 'R' ? state : `${state} in ${waitingIn}`;
}

function kernelWait(pid: number): string | undefined {
  try {
    const name = readFileSync(`/proc/${pid}/wchan`, 'utf8').trim();
    // "0" or empty: not waiting, or the kernel hides its addresses from us.
    return name === '' || name === '0' ? undefined : name;
  } catch {
    return undefined;
  }
}

import { readFileSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';

/**
 * What a clock measures: `thread-cpu` is the CPU time of the worker's thread
 * (Node's `worker.cpuUsage()` where it exists, else Linux's per-thread
 * `/proc/<pid>/task/<tid>/schedstat`); `busy-time` is the wall time the
 * worker's event loop was busy (its event-loop utilisation), the fallback
 * elsewhere, which grows faster than CPU time on a loaded machine.
 */
export type ClockKind = 'thread-cpu' | 'busy-time';

/** A worker's CPU time in milliseconds, read from the host thread while the worker runs. */
export interface ThreadClock {
  readonly kind: ClockKind;
  /** Milliseconds so far; never throws (after the thread is gone, the last value). */
  read(): Promise<number>;
}

type CpuUsage = { user: number; system: number };

/** The best clock available for `worker`, whose kernel thread id is `tid` when known. */
export function threadClock(worker: Worker, tid: number | undefined): ThreadClock {
  // Node 24.6 and later (and recent 22 releases) measure a worker's thread from its parent; the promise
  // rejects once the thread is gone.
  const cpuUsage = (worker as unknown as { cpuUsage?: () => Promise<CpuUsage> | CpuUsage }).cpuUsage;
  if (typeof cpuUsage === 'function') {
    return lastGood('thread-cpu', async () => {
      const usage = await cpuUsage.call(worker);
      return (usage.user + usage.system) / 1000;
    });
  }
  if (tid !== undefined) {
    const task = `/proc/${process.pid}/task/${tid}`;
    // schedstat: nanoseconds on the CPU, exact; stat: user and system time in clock ticks (100 per second).
    if (readsAsNumber(() => schedstatMs(task))) return lastGood('thread-cpu', async () => schedstatMs(task));
    if (readsAsNumber(() => statMs(task))) return lastGood('thread-cpu', async () => statMs(task));
  }
  return lastGood('busy-time', async () => worker.performance.eventLoopUtilization().active);
}

function schedstatMs(task: string): number {
  return Number(readFileSync(`${task}/schedstat`, 'latin1').split(' ')[0]) / 1e6;
}

const TICKS_PER_SECOND = 100;

function statMs(task: string): number {
  const text = readFileSync(`${task}/stat`, 'latin1');
  // The command name (in parentheses) may hold spaces: count fields after its closing parenthesis.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

function readsAsNumber(read: () => number): boolean {
  try {
    return Number.isFinite(read());
  } catch {
    return false;
  }
}

function lastGood(kind: ClockKind, read: () => Promise<number>): ThreadClock {
  let last = 0;
  return {
    kind,
    read: async () => {
      try {
        const value = await read();
        if (Number.isFinite(value)) last = value;
      } catch {
        // The thread has exited: its time no longer changes.
      }
      return last;
    },
  };
}

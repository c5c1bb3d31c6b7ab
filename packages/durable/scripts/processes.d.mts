import type { ChildProcess } from 'node:child_process';

/** A free TCP port on loopback. */
export function freePort(): Promise<number>;
/** Polls `check` until it holds; throws when `child` exits first. */
export function until(what: string, check: () => Promise<boolean>, child?: ChildProcess, output?: () => string): Promise<void>;
/** Keeps the last 8 kB of a child's output. */
export function collect(child: ChildProcess): () => string;
/** Kills a process with SIGKILL and waits until it is gone. */
export function killHard(child: ChildProcess): Promise<void>;

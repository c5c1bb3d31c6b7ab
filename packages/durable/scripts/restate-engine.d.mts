import type { ChildProcess } from 'node:child_process';

/** A free TCP port on loopback. */
export function freePort(): Promise<number>;
/** Polls `check` until it holds; throws when `child` exits first. */
export function until(what: string, check: () => Promise<boolean>, child?: ChildProcess, output?: () => string): Promise<void>;
/** Keeps the last 8 kB of a child's output. */
export function collect(child: ChildProcess): () => string;
/** Starts restate-server on loopback with its data under `dir`. */
export function startRestate(
  dir: string,
  options?: { fastRetries?: boolean },
): Promise<{ child: ChildProcess; ingressUrl: string; adminUrl: string }>;

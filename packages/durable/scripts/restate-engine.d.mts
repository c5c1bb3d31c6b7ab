import type { ChildProcess } from 'node:child_process';

export { collect, freePort, until } from './processes.mjs';

/** Starts restate-server on loopback with its data under `dir`; `output()` is the last 8 kB it printed. */
export function startRestate(
  dir: string,
  options?: { fastRetries?: boolean },
): Promise<{ child: ChildProcess; output: () => string; ingressUrl: string; adminUrl: string }>;

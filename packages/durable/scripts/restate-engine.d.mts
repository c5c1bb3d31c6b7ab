import type { ChildProcess } from 'node:child_process';

export { collect, freePort, until } from './processes.mjs';

/** Starts restate-server on loopback with its data under `dir`. */
export function startRestate(
  dir: string,
  options?: { fastRetries?: boolean },
): Promise<{ child: ChildProcess; ingressUrl: string; adminUrl: string }>;

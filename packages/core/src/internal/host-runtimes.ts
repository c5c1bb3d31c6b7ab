import type { Runtime } from '../runtime.js';

/** Each host's runtime, for core's own functions that take a host (`resumeSession`); never exposed. */
const runtimes = new WeakMap<object, Runtime>();

/** Records `host`'s runtime. */
export function rememberRuntime(host: object, rt: Runtime): void {
  runtimes.set(host, rt);
}

/** The runtime of a host made by `createHost`, or undefined for anything else. */
export function runtimeOf(host: object): Runtime | undefined {
  return runtimes.get(host);
}

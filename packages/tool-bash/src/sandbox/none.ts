import type { SandboxProvider } from './provider.js';

/**
 * No sandbox: the command runs with the host process's privileges. Every
 * call that runs this way is logged (`bash/sandbox` event). A command that
 * calls `setsid` and clears its environment can outlive its call, unless
 * the call runs in its own cgroup v2 (see the README).
 */
export function noSandbox(): SandboxProvider {
  const provider: SandboxProvider = {
    name: 'none',
    containsProcessTree: false,
    probe: () => Promise.resolve({ ok: true } as const),
    wrap: (command) => command,
  };
  unsandboxed.add(provider);
  return Object.freeze(provider);
}

const unsandboxed = new WeakSet<SandboxProvider>();

/** Whether `provider` is `noSandbox()`: the command runs on the host as it is. */
export function isNoSandbox(provider: SandboxProvider): boolean {
  return unsandboxed.has(provider);
}

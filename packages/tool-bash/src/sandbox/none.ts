import type { SandboxProvider } from './provider.js';

/**
 * No sandbox: the command runs with the host process's privileges. Every
 * call that runs this way is logged (`bash/sandbox` event). A command that
 * calls `setsid` and clears its environment can outlive its call.
 */
export function noSandbox(): SandboxProvider {
  const provider: SandboxProvider = {
    name: 'none',
    containsProcessTree: false,
    probe: () => Promise.resolve({ ok: true } as const),
    wrap: (command) => command,
  };
  return Object.freeze(provider);
}

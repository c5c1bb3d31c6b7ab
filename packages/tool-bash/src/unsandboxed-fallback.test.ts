// A root host that cannot give unsandboxed calls a PID namespace (here: no unshare on this process's
// PATH) falls back to the marker sweep and says so once, with a warning code; it never downgrades silently.
import { afterEach, describe, expect, it } from 'vitest';
import { bashHosts, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { noPidNamespaceWarning } from './internal/pid-namespace.js';
import { killProcessesMatching, processesMatching, waitForNoProcesses } from './processes.js';

const ws = workspace();
const { env, mark } = trackProcesses();
const host = bashHosts({ cwd: ws, killGraceMs: 300, cgroups: false, sandbox: { provider: 'none' } }, env);
const root = process.getuid?.() === 0;
const hostPath = process.env.PATH;

afterEach(() => {
  process.env.PATH = hostPath;
});

describe.skipIf(!root)('without unshare on PATH, as root (skipped when not root: there is no namespace to miss)', () => {
  it('warns once, and a call runs as before: an escapee that cleared its environment survives', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      if ((warning as Error & { code?: string }).code === noPidNamespaceWarning) warnings.push(warning);
    };
    process.on('warning', onWarning);
    // The host copied PATH for its commands when it was made; only the tool's own look-up for unshare misses it.
    const t = await host();
    const survivor = `${mark()}cleared`;
    try {
      process.env.PATH = ws;
      const until = `until grep -qsa '^${survivor}' /proc/[0-9]*/cmdline; do sleep 0.01; done`;
      const command = `env -i setsid bash -c 'exec -a ${survivor} sleep 300' >/dev/null 2>&1 </dev/null & ${until}; echo settled`;
      expect(okOutput(await t.call('bash', { command })).stdout).toBe('settled\n');
      expect(processesMatching(survivor).map((p) => p.command)).toEqual([`${survivor} 300`]);
      expect(okOutput(await t.call('bash', { command: 'echo again' })).stdout).toBe('again\n');
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
      expect(warnings.map((w) => w.message)).toEqual([
        expect.stringMatching(/without a PID namespace \(no unshare \(util-linux\) on PATH\)/),
      ]);
    } finally {
      process.off('warning', onWarning);
      killProcessesMatching(survivor);
      expect(await waitForNoProcesses(survivor)).toEqual([]);
    }
  });
});

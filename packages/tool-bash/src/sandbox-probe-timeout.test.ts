// A bwrap probe that does not finish in time (a starved machine: CI saw one time out at load 38) is
// not the sandbox's verdict for the session. Before, every later call was denied, or with
// `fallback: 'none'` ran unsandboxed, until the host was made again. The probe here is real bwrap
// behind a shim that stalls once: the first call gets the fallback, the next probes again.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { bwrapSandbox } from './sandbox/bwrap.js';

const status = await bwrapStatus();
const ws = workspace();
const { env } = trackProcesses();

/** A `bwrap` that sleeps through its first run (the probe's), then is bwrap. */
function stallsOnce(): { path: string; stalled: string } {
  const dir = workspace('dsh-bash-shim-');
  const stalled = join(dir, 'stalled');
  const path = join(dir, 'bwrap');
  writeFileSync(path, `#!/bin/sh\nif [ ! -e '${stalled}' ]; then : >'${stalled}'; exec sleep 60; fi\nexec bwrap "$@"\n`, { mode: 0o755 });
  return { path, stalled };
}

describe.skipIf(!status.ok)('a bwrap probe that timed out', () => {
  for (const fallback of ['deny', 'none'] as const) {
    it(`is tried again by the next call, which runs in the sandbox (fallback: ${fallback})`, async () => {
      const shim = stallsOnce();
      const provider = bwrapSandbox({ bwrapPath: shim.path, probeTimeoutMs: 1_000 });
      const t = await bashHosts({ cwd: ws, sandbox: { provider, fallback } }, env)();
      const first = await t.call('bash', { command: 'echo first' });
      expect(existsSync(shim.stalled)).toBe(true);
      if (fallback === 'deny') {
        expect(first).toMatchObject({ status: 'denied', reason: expect.stringContaining('did not finish within 1000 ms') });
      } else {
        expect(okOutput(first).sandbox).toBe('none');
      }
      // Each later call probes again until one probe finishes in time: on a starved machine a real probe can take
      // over the second it is given here, so more than one call may get the fallback. Without a new probe, none runs in bwrap.
      let calls = 1;
      let sandboxed: string | undefined;
      while (sandboxed === undefined && calls < 20) {
        calls += 1;
        const outcome = await t.call('bash', { command: 'echo again' });
        if (outcome.status === 'ok' && okOutput(outcome).sandbox === 'bwrap') sandboxed = okOutput(outcome).stdout;
      }
      expect(sandboxed).toBe('again\n');
      // A probe that passed is kept.
      expect(okOutput(await t.call('bash', { command: 'true' })).sandbox).toBe('bwrap');
    });
  }
});

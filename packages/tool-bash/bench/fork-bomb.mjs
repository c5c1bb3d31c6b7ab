#!/usr/bin/env node
// Issue 35 item 5: a fork bomb in the bwrap sandbox, stopped at its deadline (2 s, grace 1 s). Prints
// how long after the deadline the call settled, and how many of its processes were alive when the
// result arrived and 3 s later. Asserts nothing (the machine is shared and noisy); run it on a quiet
// machine for the number the README quotes: `node bench/fork-bomb.mjs` (needs bubblewrap).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bwrapSandbox, killProcessesMatching, processesMatching } from '../dist/index.js';
import { toolHost } from './common.mjs';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const timeoutMs = 2_000;
const killGraceMs = 1_000;
const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bash-bomb-')));

try {
  const probe = await bwrapSandbox().probe({ writableRoots: [cwd], readOnlyPaths: [], extraReadablePaths: [], network: false, cwd });
  if (!probe.ok) {
    console.log(`fork bomb: skipped (${probe.reason})`);
  } else {
    console.log(`fork bomb in bwrap, deadline ${timeoutMs} ms, grace ${killGraceMs} ms (${rounds} rounds)`);
    const call = await toolHost({ cwd, killGraceMs, sandbox: { provider: 'bwrap' } }, false, true);
    for (let round = 1; round <= rounds; round += 1) {
      const mark = `dshbomb${randomBytes(6).toString('hex')}`;
      const started = performance.now();
      // The bomb ignores SIGTERM, so only the kill after the grace period ends it.
      const outcome = await call(`export DSH_BOMB=${mark}\ntrap "" TERM\nbomb() { bomb | bomb & }; bomb; sleep 300`, timeoutMs);
      const settledMs = performance.now() - started - timeoutMs;
      const atResult = processesMatching(mark).length;
      await sleep(3_000);
      const later = processesMatching(mark).length;
      killProcessesMatching(mark);
      console.log(
        `round ${round}: ${outcome.status === 'error' ? outcome.error.code : outcome.status}, settled ${Math.round(settledMs)} ms after the deadline ` +
          `(grace ${killGraceMs} ms); processes alive at the result: ${atResult}, 3 s later: ${later}`,
      );
    }
  }
} finally {
  rmSync(cwd, { recursive: true, force: true });
}

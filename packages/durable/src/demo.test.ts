// `pnpm demo:durable` (demo/run.mjs) as users run it: real restate-server, real PostgreSQL, real
// worker processes killed with SIGKILL. The DBOS half needs PostgreSQL (skipped without it, as the
// DBOS binding tests are).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { postgresStatus } from '../scripts/postgres-cluster.mjs';

const demo = fileURLToPath(new URL('../demo/run.mjs', import.meta.url));
const status = postgresStatus();

function runDemo(): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [demo], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stdout}\n${stderr}`)),
    ),
  );
}

describe.skipIf(!status.ok)(`the durable demo${status.ok ? '' : ` (skipped: ${status.reason})`}`, () => {
  // A hang bound only: two engines and four worker processes on a loaded machine.
  it('survives the worker kill on Restate and then on DBOS, each call with one result', { timeout: 300_000 }, async () => {
    const out = await runDemo();
    for (const prefix of ['[demo]', '[demo dbos]']) {
      expect(out).toContain(`${prefix} read-1: ok`);
      expect(out).toContain(`${prefix} deploy-1: error {"code":"TOOL_INTERRUPTED"`);
      expect(out).toContain(`${prefix} after-1: ok`);
      expect(out).toContain(`${prefix} side effects: ["deploy started","after ran"]`);
    }
  });
});

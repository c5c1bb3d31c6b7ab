// `pnpm demo:durable` (demo/run.mjs) as users run it: real restate-server, real PostgreSQL, real
// worker processes killed with SIGKILL. The DBOS half needs PostgreSQL (skipped without it, as the
// DBOS binding tests are).
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresStatus } from '../scripts/postgres-cluster.mjs';
import { expectOneCallAndResultEach } from './fixtures/session-log-checks.js';

const demo = fileURLToPath(new URL('../demo/run.mjs', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const status = postgresStatus();
const kept: string[] = [];

function run(args: readonly string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { maxBuffer: 16 * 1024 * 1024, cwd }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stdout}\n${stderr}`)),
    ),
  );
}

/** Whether every string and bracket a line opens it also closes: no JSON cut mid-value. */
function balanced(line: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') depth -= 1;
  }
  return depth === 0 && !inString;
}

afterAll(async () => {
  for (const folder of kept) await rm(folder, { recursive: true, force: true });
});

describe.skipIf(!status.ok)(`the durable demo${status.ok ? '' : ` (skipped: ${status.reason})`}`, () => {
  // A hang bound only: two engines and four worker processes on a loaded machine.
  it('survives the worker kill on Restate and on DBOS, keeps each session log and prints how to read it', {
    timeout: 300_000,
  }, async () => {
    const out = await run([demo]);
    for (const line of out.split('\n')) expect([line, balanced(line)]).toEqual([line, true]);
    for (const prefix of ['[demo]', '[demo dbos]']) {
      expect(out).toContain(`${prefix} read-1: ok`);
      expect(out).toContain(`${prefix} deploy-1: error TOOL_INTERRUPTED: outcome unknown`);
      expect(out).toContain(`${prefix} after-1: ok`);
      expect(out).toContain(`${prefix} side effects: ["deploy started","after ran"]`);
      const folder = new RegExp(`^${prefix.replace(/[[\]]/g, '\\$&')} kept its folder (.+)$`, 'm').exec(out)?.[1];
      const command = new RegExp(`^${prefix.replace(/[[\]]/g, '\\$&')} read it with: pnpm dsh log (.+)$`, 'm').exec(out)?.[1];
      expect(folder).toBeDefined();
      expect(command).toBeDefined();
      kept.push(folder as string);
      const logPath = isAbsolute(command as string) ? (command as string) : join(repoRoot, command as string);
      await expectOneCallAndResultEach(logPath, ['read-1', 'deploy-1', 'after-1']);
      // What `pnpm dsh log <file>` runs, from the repository root where pnpm starts it.
      const shown = await run([join(repoRoot, 'scripts', 'dsh.mjs'), 'log', command as string], repoRoot);
      for (const call of ['read-1', 'deploy-1', 'after-1']) expect(shown).toContain(call);
      expect(shown).toContain('TOOL_INTERRUPTED');
    }
  });
});

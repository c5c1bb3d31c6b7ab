import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, okOutput, trackProcesses, workspace } from './fixtures/support.js';

// A missing agent file (`.claude/settings.local.json`, `.mcp.json`, …) is kept from being created by
// a read-only stub that bwrap mounts on an empty file it makes on the host. A host killed outright
// runs no exit hook: the plugin's next start (its sandbox probe) removes what it left.

const status = await bwrapStatus();
const { env } = trackProcesses();

/** Empty regular files under `dir` (not following links), relative. */
function emptyFiles(dir: string, prefix = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...emptyFiles(path, `${prefix}${entry.name}/`));
    else if (entry.isFile() && statSync(path).size === 0) found.push(`${prefix}${entry.name}`);
  }
  return found.sort();
}

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

describe.runIf(status.ok || status.required)('mount-point stubs left by a killed host', () => {
  it('are removed when the bash plugin next starts, in another process', async () => {
    const ws = workspace();
    const started = join(ws, 'started');
    const script = `
      import { createHost } from '@deepseek-ai/dsh-core';
      import { toolBash } from '${new URL('../dist/index.js', import.meta.url).pathname}';
      const host = createHost({ defaultDecision: 'allow' });
      await host.use(toolBash({ cwd: ${JSON.stringify(ws)}, sandbox: { provider: 'bwrap' }, env: { set: ${JSON.stringify(env)} } }));
      await host.runStep({ calls: [{ id: 'c1', name: 'bash', args: { command: 'touch started; sleep 600', timeout: 600000 } }] });
    `;
    child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: import.meta.dirname, stdio: 'ignore' });
    // The test timeout is the only bound.
    while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 20));
    const stubs = emptyFiles(ws).filter((path) => path !== 'started');
    expect(stubs.length).toBeGreaterThan(0);

    const gone = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
    // No exit hook ran: the stubs are still on the host.
    expect(emptyFiles(ws).filter((path) => path !== 'started')).toEqual(stubs);

    const host = bashHosts({ cwd: ws, sandbox: { provider: 'bwrap' } }, env);
    const t = await host();
    okOutput(await t.call('bash', { command: 'true' }));
    expect(emptyFiles(ws).filter((path) => path !== 'started')).toEqual([]);
  });
});

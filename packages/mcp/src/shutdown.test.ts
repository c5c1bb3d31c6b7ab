import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { alive, tempDir, writeFixture } from './fixtures/servers.js';

const script = fileURLToPath(new URL('./fixtures/exit-without-close.mjs', import.meta.url));
const hostileBin = fileURLToPath(new URL('./fixtures/hostile-server.mjs', import.meta.url));

describe('host shutdown', () => {
  it('kills the stdio servers (whole process groups) of a Node process that exits without close()', async () => {
    const tools = writeFixture(tempDir(), 'tools.json', '[]');
    const { stdout } = await promisify(execFile)(process.execPath, [script, hostileBin, tools]);
    const pid = Number(stdout.trim());
    expect(pid).toBeGreaterThan(0);
    // SIGKILL was sent on exit; the kernel may take a moment to finish the processes off.
    await expect.poll(() => alive(-pid), { timeout: 10_000 }).toBe(false);
  });
});

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { alive, patientStartup, serving, tempDir, writeFixture } from './fixtures/servers.js';
import { mcp } from './index.js';

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

  it('stops the stdio servers (whole process groups) when the host closes', async () => {
    const tools = writeFixture(tempDir(), 'tools.json', '[]');
    const plugin = mcp({
      servers: { bad: { command: process.execPath, args: [hostileBin], env: { HOSTILE_TOOLS_FILE: tools } } },
      ...patientStartup,
    });
    const t = await createTestHost({ plugins: [plugin] });
    await serving(plugin);
    const pid = plugin.servers()[0]?.pid as number;
    expect(alive(-pid)).toBe(true);
    await t.host.close();
    expect(plugin.servers()[0]?.state).toBe('closed');
    // close() waits for the leader and (2 s at most) for the rest of the group; a starved kernel may take longer.
    await expect.poll(() => alive(-pid), { timeout: 15_000 }).toBe(false);
  });
});

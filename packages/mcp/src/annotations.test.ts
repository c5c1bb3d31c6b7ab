import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createTestHost, scriptedApproval } from '@deepseek-ai/dsh-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, everythingBin, filesystemBin, patientStartup, serving, tempDir } from './fixtures/servers.js';
import { type McpPlugin, mcp } from './index.js';

const plugins: McpPlugin[] = [];
afterEach(async () => {
  await closeAll(plugins);
});

function everything(trusted: boolean): McpPlugin {
  const plugin = mcp({
    servers: { everything: { command: process.execPath, args: [everythingBin, 'stdio'], trusted } },
    ...patientStartup,
  });
  plugins.push(plugin);
  return plugin;
}

describe('annotations', () => {
  it('are ignored for an untrusted server', async () => {
    const plugin = everything(false);
    const t = await createTestHost({ plugins: [plugin] });
    await serving(plugin);
    const long = t.host.tools.get('mcp__everything__trigger-long-running-operation');
    expect(long?.parallel).toBe(false);
    expect(long?.idempotent).toBe(false);
    expect(plugin.servers()[0]?.tools.every((tool) => !tool.hints.parallel && !tool.hints.idempotent && !tool.hints.ask)).toBe(true);
    expect((await t.call('mcp__everything__echo', { message: 'x' })).status).toBe('ok');
  });

  it('of a trusted server set parallel and idempotent from read-only and idempotent hints', async () => {
    const plugin = everything(true);
    const t = await createTestHost({ plugins: [plugin] });
    await serving(plugin);
    const long = t.host.tools.get('mcp__everything__trigger-long-running-operation');
    expect(long?.parallel).toBe(true);
    expect(long?.idempotent).toBe(true);
    const toggle = plugin.servers()[0]?.tools.find((tool) => tool.serverTool === 'toggle-simulated-logging');
    expect(toggle?.hints).toEqual({ parallel: false, idempotent: false, ask: false });
  });

  it('of a trusted server make destructive tools ask; the same tools of an untrusted server do not', async () => {
    const root = tempDir();
    const approval = scriptedApproval('rejected');
    const trusted = mcp({ servers: { fs: { command: process.execPath, args: [filesystemBin, root], trusted: true } }, ...patientStartup });
    plugins.push(trusted);
    const t = await createTestHost({ plugins: [trusted], approval: approval.provider });
    await serving(trusted);
    const outcome = await t.call('mcp__fs__write_file', { path: join(root, 'a.txt'), content: 'x' });
    expect(outcome).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(approval.requests[0]?.reason).toContain('destructive');
    expect(existsSync(join(root, 'a.txt'))).toBe(false);
    expect((await t.call('mcp__fs__list_allowed_directories', {})).status).toBe('ok');

    const untrusted = mcp({ servers: { fs: { command: process.execPath, args: [filesystemBin, root] } }, ...patientStartup });
    plugins.push(untrusted);
    const u = await createTestHost({ plugins: [untrusted], approval: approval.provider });
    await serving(untrusted);
    expect((await u.call('mcp__fs__write_file', { path: join(root, 'b.txt'), content: 'x' })).status).toBe('ok');
    expect(approval.requests).toHaveLength(1);
  });
});

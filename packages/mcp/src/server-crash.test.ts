import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AnySessionEvent, catalogOf, createHost } from '@deepseek-ai/dsh-core';
import { createTestHost, logProblems } from '@deepseek-ai/dsh-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, patientStartup, serving, tempDir, writeFixture } from './fixtures/servers.js';
import { type McpOptions, type McpPlugin, mcp, serverExitedEvent } from './index.js';

const hostileBin = fileURLToPath(new URL('./fixtures/hostile-server.mjs', import.meta.url));
const tools = ['crash', 'hang', 'fails'].map((name) => ({ name, inputSchema: { type: 'object' } }));

const plugins: McpPlugin[] = [];
afterEach(async () => {
  await closeAll(plugins);
});

async function hostile(env: Record<string, string>, extra: Partial<McpOptions> = {}) {
  const plugin = mcp({
    servers: {
      bad: {
        command: process.execPath,
        args: [hostileBin],
        env: { HOSTILE_TOOLS_FILE: writeFixture(tempDir(), 'tools.json', JSON.stringify(tools)), ...env },
      },
    },
    retry: { initialDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    killGraceMs: 500,
    ...patientStartup,
    ...extra,
  });
  plugins.push(plugin);
  const t = await createTestHost({ plugins: [plugin] });
  await serving(plugin);
  return { plugin, t };
}

// Polls end as soon as the condition holds; the bound only ends a hang (a loaded CI machine is slow).
const hangBound = 60_000;
const exits = (events: readonly AnySessionEvent[]) => events.filter((e) => e.type === 'mcp/server-exited');

describe('a server that crashes', () => {
  it('crashes mid-call and fails to restart: the crash, its stderr and the start failure are each kept', async () => {
    const { plugin, t } = await hostile({ HOSTILE_CRASH_FLAG: join(tempDir(), 'crashed') });
    const pid = plugin.servers()[0]?.pid as number;
    const outcome = await t.call('mcp__bad__crash', {});
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'MCP_SERVER_EXITED' } });
    expect(outcome.status === 'error' && outcome.error.message).toContain('(exit code 3)');
    expect(outcome.status === 'error' && outcome.error.message).toContain('about to crash');

    // The one restart (maxAttempts 1) finds the crash flag and exits 2.
    await expect.poll(() => plugin.servers()[0]?.state, { timeout: hangBound }).toBe('failed');
    const status = plugin.servers()[0];
    expect(status?.lastError).toMatchObject({ code: 'MCP_START_FAILED', message: expect.stringContaining('refusing to start') });
    expect(status?.lastCrash).toEqual({
      code: 'MCP_SERVER_EXITED',
      message: expect.stringContaining('about to crash'),
      at: expect.any(String),
      pid,
      exitCode: 3,
      signal: null,
      stderrTail: 'about to crash\n',
      callsInFlight: 1,
    });
    expect(status?.lastStartFailure).toEqual({
      code: 'MCP_START_FAILED',
      message: expect.stringContaining('refusing to start'),
      at: expect.any(String),
      pid: expect.any(Number),
      exitCode: 2,
      signal: null,
      stderrTail: 'refusing to start: the last run crashed\n',
      attempt: 1,
    });
    expect(status?.lastStartFailure?.pid).not.toBe(pid);

    const events = t.host.events.list();
    expect(logProblems(events)).toEqual([]);
    const exited = exits(events);
    expect(exited.map((e) => e.data)).toEqual([
      {
        server: 'bad',
        transport: 'stdio',
        pid,
        exitCode: 3,
        signal: null,
        stderrTail: 'about to crash\n',
        callsInFlight: 1,
        restartInMs: 10,
      },
    ]);
    // Logged before the result of the call it ended.
    const result = events.find((e) => e.type === 'tool/result');
    expect((exited[0]?.seq ?? Number.POSITIVE_INFINITY) < (result?.seq ?? 0)).toBe(true);
  });

  it('is killed by a signal during a call: the event and lastCrash name the signal, and survive the restart', async () => {
    const { plugin, t } = await hostile({}, { retry: { initialDelayMs: 10, maxDelayMs: 50, maxAttempts: 3 } });
    const pid = plugin.servers()[0]?.pid as number;
    const pending = t.call('mcp__bad__hang', {});
    // The server has the request (it says so on stderr) before it is killed.
    await expect.poll(() => plugin.servers()[0]?.stderrTail, { timeout: hangBound }).toContain('hanging');
    process.kill(-pid, 'SIGKILL');
    expect(await pending).toMatchObject({ status: 'error', error: { code: 'MCP_SERVER_EXITED' } });
    await expect.poll(() => plugin.servers()[0]?.state, { timeout: hangBound }).toBe('ready');
    const status = plugin.servers()[0];
    expect(status?.pid).not.toBe(pid);
    expect(status?.lastCrash).toMatchObject({ pid, exitCode: null, signal: 'SIGKILL', stderrTail: 'hanging\n', callsInFlight: 1 });
    expect(status?.stderrTail).not.toContain('hanging');
    expect(status?.lastStartFailure).toBeUndefined();
    expect(exits(t.host.events.list()).map((e) => e.data)).toEqual([
      expect.objectContaining({ pid, exitCode: null, signal: 'SIGKILL', stderrTail: 'hanging\n', restartInMs: 10 }),
    ]);
    expect(await t.call('mcp__bad__fails', {})).toMatchObject({ status: 'error', error: { code: 'MCP_TOOL_ERROR' } });
  });

  it('keeps the exit code and stderr of a server that exits as it starts, before reading its first message', async () => {
    // Its pipes close as it exits: the first write fails (EPIPE) before its exit and stderr are read.
    const plugin = mcp({
      servers: { bad: { command: '/bin/sh', args: ['-c', 'echo "refusing: no config" >&2; exit 2'] } },
      retry: { initialDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
      killGraceMs: 30_000,
    });
    plugins.push(plugin);
    await createTestHost({ plugins: [plugin] });
    await expect.poll(() => plugin.servers()[0]?.state, { timeout: hangBound }).toBe('failed');
    expect(plugin.servers()[0]?.lastStartFailure).toMatchObject({
      code: 'MCP_START_FAILED',
      message: expect.stringContaining('its stderr ends with: refusing: no config'),
      exitCode: 2,
    });
  });

  it('records no crash when close() stops the server', async () => {
    const { plugin, t } = await hostile({});
    await plugin.close();
    expect(exits(t.host.events.list())).toEqual([]);
    expect(plugin.servers()[0]).toMatchObject({ state: 'closed' });
    expect(plugin.servers()[0]?.lastCrash).toBeUndefined();
  });
});

describe('the mcp/server-exited event type', () => {
  it('is in the host catalog with its schema, meaning and an example that passes it', async () => {
    const host = createHost();
    const plugin = mcp();
    plugins.push(plugin);
    await host.use(plugin);
    const entry = catalogOf(host).events.find((e) => e.type === 'mcp/server-exited');
    expect(entry).toMatchObject({ meaning: expect.stringContaining('exit code, signal, stderr tail') });
    expect(serverExitedEvent.safeParse(host.events.docs().get('mcp/server-exited')?.example).success).toBe(true);
  });
});

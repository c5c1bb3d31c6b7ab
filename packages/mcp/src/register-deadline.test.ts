import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHost } from '@deepseek-ai/dsh-core';
import { afterEach, expect, it } from 'vitest';
import { closeAll, tempDir } from './fixtures/servers.js';
import { type McpPlugin, mcp } from './index.js';

const plugins: McpPlugin[] = [];
afterEach(async () => {
  await closeAll(plugins);
});

// The host gives register 6 s, and the plugin waits up to 5.7 s for its servers. Reading the configuration takes
// 0.3 s (a FIFO nobody writes until then). Counted from the spawns, the wait would end at 6 s or later, always past
// the host's deadline; counted from register's own start it ends at 5.7 s, and the machine would have to stall the
// process for over 5 s to change the verdict.
it("ends register within startupTimeoutMs of register's start, however long reading the configuration took", async () => {
  const slowConfig = join(tempDir(), '.mcp.json');
  execFileSync('mkfifo', [slowConfig]);
  const plugin = mcp({
    configFiles: [slowConfig],
    servers: { silent: { command: 'sleep', args: ['60'] } },
    startupTimeoutMs: 5_700,
  });
  plugins.push(plugin);
  const released = new Promise<void>((resolve, reject) => {
    setTimeout(() => writeFile(slowConfig, '{"mcpServers":{}}').then(resolve, reject), 300);
  });
  const host = createHost({ pluginTimeoutMs: 6_000 });
  await expect(host.use(plugin)).resolves.toBeUndefined();
  await released;
  expect(plugin.problems()).toEqual([]);
  expect(plugin.servers().map((s) => s.name)).toEqual(['silent']);
});

// A slow server may need a long startupTimeoutMs (an npx download); register still ends inside the host's default
// deadline of 10 s: it waits at most 8 s. Waiting the whole 60 s, it would fail with PLUGIN_REGISTER_TIMEOUT.
it('waits at most 8 s in register, whatever startupTimeoutMs a slow server gets', async () => {
  const plugin = mcp({ servers: { silent: { command: 'sleep', args: ['60'] } }, startupTimeoutMs: 60_000 });
  plugins.push(plugin);
  await expect(createHost().use(plugin)).resolves.toBeUndefined();
  expect(plugin.servers()).toMatchObject([{ name: 'silent', state: 'starting' }]);
});

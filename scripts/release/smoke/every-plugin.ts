// Every plugin on one host, configured as an integrator would, from the packed packages: one
// run_code program writes a file, reads it back and runs bash, each call re-entering the
// pipeline. It fails when a plugin's runtime dependency (picomatch, diff, ignore, QuickJS,
// sucrase, ...) or a type an integrator needs is missing from what would be published, and when a
// plugin (or the CLI) reports a version other than the one in its installed package.json.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agent } from '@deepseek-ai/dsh-agent';
import { cliVersion } from '@deepseek-ai/dsh-cli';
import { codeMode } from '@deepseek-ai/dsh-code-mode';
import { type ApprovalProvider, createHost, type Plugin } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { hooksBridge } from '@deepseek-ai/dsh-hooks-bridge';
import { mcp } from '@deepseek-ai/dsh-mcp';
import { otel } from '@deepseek-ai/dsh-otel';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { retryPolicy } from '@deepseek-ai/dsh-retry-policy';
import { timeoutPolicy } from '@deepseek-ai/dsh-timeout-policy';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { toolSkill } from '@deepseek-ai/dsh-tool-skill';
import { toolSubagent } from '@deepseek-ai/dsh-tool-subagent';
import { toolTodo } from '@deepseek-ai/dsh-tool-todo';
import { toolWeb } from '@deepseek-ai/dsh-tool-web';

const scratch = mkdtempSync(join(tmpdir(), 'dsh-consumer-'));
try {
  const dirs = { projectDir: scratch, homeDir: scratch };
  const mcpPlugin = mcp({ cwd: scratch });
  const packages: [string, Plugin][] = [
    ['@deepseek-ai/dsh-tool-fs', toolFs({ roots: [scratch], cwd: scratch, search: 'builtin' })],
    ['@deepseek-ai/dsh-tool-bash', toolBash({ cwd: scratch, sandbox: { provider: 'none' } })],
    ['@deepseek-ai/dsh-timeout-policy', timeoutPolicy()],
    ['@deepseek-ai/dsh-retry-policy', retryPolicy()],
    ['@deepseek-ai/dsh-otel', otel()],
    ['@deepseek-ai/dsh-hooks-bridge', hooksBridge(dirs)],
    ['@deepseek-ai/dsh-permissions', permissions({ ...dirs, cwd: scratch })],
    ['@deepseek-ai/dsh-tool-todo', toolTodo()],
    ['@deepseek-ai/dsh-tool-web', toolWeb()],
    ['@deepseek-ai/dsh-tool-skill', toolSkill(dirs)],
    ['@deepseek-ai/dsh-mcp', mcpPlugin],
    ['@deepseek-ai/dsh-agent', agent()],
    // A subagent's model that answers at once: the smoke test only registers the task tool.
    ['@deepseek-ai/dsh-tool-subagent', toolSubagent({ model: async () => ({ text: 'done', calls: [], stop: 'end' }), ...dirs })],
    ['@deepseek-ai/dsh-code-mode', codeMode()],
  ];
  const plugins = packages.map(([, plugin]) => plugin);
  // The version each plugin reports is its package.json's: the one place a release writes it.
  const manifestVersion = (name: string) => (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version;
  for (const [name, plugin] of packages) {
    assert.equal(plugin.version, manifestVersion(name), `${name}: the plugin reports ${plugin.version}`);
  }
  assert.equal(cliVersion, manifestVersion('@deepseek-ai/dsh-cli'), `the CLI reports ${cliVersion}`);
  console.log(`every plugin and the CLI report their package.json version (${packages.length + 1} checked)`);

  const approval: ApprovalProvider = () => 'allowed-once';
  const host = createHost({ approval });
  for (const plugin of plugins) await host.use(plugin);

  const code = `
    await tools.write({ file_path: "hello.txt", content: "hello from a consumer\\n" });
    const read = await tools.read({ file_path: "hello.txt" });
    const echo = await tools.bash({ command: "cat hello.txt" });
    return { read, echo };
  `;
  const { results } = await host.runStep({ calls: [{ id: 'call_1', name: 'run_code', args: { code } }] });
  const outcome = results[0]?.outcome;
  assert.equal(outcome?.status, 'ok', `run_code should succeed, got ${JSON.stringify(outcome)}`);
  assert.equal(readFileSync(join(scratch, 'hello.txt'), 'utf8'), 'hello from a consumer\n');
  const text = JSON.stringify(outcome.output);
  assert.match(text, /hello from a consumer/);
  console.log(`every plugin: run_code wrote, read and ran bash through ${plugins.length} plugins`);

  // The testing entry point ships too: plugin authors test against it.
  const t = await createTestHost({ plugins: [toolFs({ roots: [scratch], cwd: scratch, search: 'builtin' })] });
  const listed = await t.call('list', { path: scratch });
  assert.equal(listed.status, 'ok', `list should succeed, got ${JSON.stringify(listed)}`);
  console.log('core/testing: createTestHost ran a tool');
  await mcpPlugin.close();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

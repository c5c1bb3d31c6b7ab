import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { definePlugin, defineTool, z } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { permissionHost } from './fixtures/hosts.js';
import { makeProject, type Project } from './fixtures/project.js';
import { permissions } from './plugin.js';

/*
 * Settings files as Claude Code writes them, run through the real plugin on a real host: each rule must
 * mean what it means in Claude Code, and each rule dsh reads differently is reported once.
 */

let project: Project;
beforeEach(() => {
  project = makeProject();
});
afterEach(() => project.dispose());

/** Writes a settings file from its JSON text, as a user or Claude Code would have left it. */
function settingsFile(which: 'project' | 'local', json: string): void {
  project.write(join('.claude', which === 'local' ? 'settings.local.json' : 'settings.json'), json);
}

describe('rules from real settings files', () => {
  it('denies the command an escaped "don\'t ask again" deny rule names', async () => {
    settingsFile(
      'local',
      String.raw`{
  "permissions": {
    "allow": ["Bash(npx jest --testPathPattern=\"\\(A|B\\)\")"],
    "deny": ["Bash(rm -rf \\(build\\))"]
  }
}
`,
    );
    const t = await permissionHost(project);
    expect(await t.call('shell', { command: 'npx jest --testPathPattern="(A|B)"' })).toMatchObject({ status: 'ok' });
    expect(await t.call('shell', { command: 'rm -rf (build)' })).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect(t.ran.calls.map((c) => c.tool)).toEqual(['shell']);
  });

  it('keeps a file a Read deny rule protects from being overwritten or edited', async () => {
    settingsFile('project', '{ "permissions": { "deny": ["Read(./.env)"], "allow": ["Edit"] } }\n');
    const env = project.write('.env', 'TOKEN=secret\n');
    const t = await permissionHost(project);
    const write = await t.call('write_file', { path: env, content: 'TOKEN=stolen\n' });
    expect(write).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect(write.status === 'denied' && write.reason).toContain('deny rule "Read(./.env)" from .claude/settings.json:1');
    expect(await t.call('edit_file', { path: env, old: 'secret', new: 'x' })).toMatchObject({ status: 'denied' });
    expect(await t.call('write_file', { path: join(project.dir, 'notes.md'), content: 'ok' })).toMatchObject({ status: 'ok' });
  });

  it('denies Edit(dir/**) at any depth under the project', async () => {
    settingsFile('project', '{ "permissions": { "deny": ["Edit(migrations/**)"], "allow": ["Write"] } }\n');
    const t = await permissionHost(project);
    const nested = join(project.dir, 'services', 'billing', 'migrations', '001.sql');
    expect(await t.call('write_file', { path: nested, content: 'DROP TABLE x;' })).toMatchObject({ status: 'denied' });
    expect(existsSync(nested)).toBe(false);
  });

  it('skips an allow rule mcp__*, reports it once by file and line, and asks for the MCP call', async () => {
    settingsFile('local', '{\n  "permissions": {\n    "allow": [\n      "mcp__*"\n    ]\n  }\n}\n');
    const t = await permissionHost(project);
    const call = await t.call('mcp__github__get_issue', { number: 1 });
    expect(call).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(t.prompts).toHaveLength(1);
    await t.perms.reload();
    const skipped = t.perms.problems().filter((p) => p.code === 'ALLOW_TOOL_WILDCARD_SKIPPED');
    expect(skipped).toEqual([expect.objectContaining({ rule: 'mcp__*', line: 4, difference: { claudeCode: '2.1.166', dsh: 'skipped' } })]);
    expect(skipped[0]?.message).toMatch(/^\.claude\/settings\.local\.json:4: allow rule "mcp__\*" is skipped/);
    expect(t.host.diagnostics.list().some((d) => d.code === 'ALLOW_TOOL_WILDCARD_SKIPPED')).toBe(true);
  });

  it('applies Write(…), Glob(…) and Grep(…) path rules but reports each once as a difference from Claude Code', async () => {
    settingsFile('project', '{ "permissions": { "deny": ["Write(//etc/**)"], "allow": ["Glob(**)", "Grep(**)"] } }\n');
    const t = await permissionHost(project, { strict: true });
    await t.perms.reload();
    const notes = t.perms.problems().filter((p) => p.code === 'PATH_RULE_NOT_CONSULTED');
    expect(notes.map((p) => p.rule)).toEqual(['Write(//etc/**)', 'Glob(**)', 'Grep(**)']);
    expect(notes.every((p) => p.difference?.dsh === 'applied')).toBe(true);
    expect(await t.call('write_file', { path: '/etc/dsh-test', content: '' })).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    const logged = t.host.events.list().filter((e) => e.type === 'permissions/problem');
    expect(logged).toHaveLength(3);
  });

  it('fails a strict set-up on a skipped rule but not on a rule it applies', async () => {
    settingsFile('project', '{ "permissions": { "allow": ["mcp__*"] } }\n');
    const failed = await permissionHost(project, { strict: true }).then(
      () => undefined,
      (error: unknown) => error as Error & { cause?: { code?: string } },
    );
    expect(failed?.cause?.code).toBe('ALLOW_TOOL_WILDCARD_SKIPPED');
    expect(failed?.message).toMatch(/allow rule "mcp__\*" is skipped/);
  });

  it('refuses to remember mcp__* as a grant: it would allow nothing', async () => {
    const t = await permissionHost(project);
    await expect(t.perms.grants.add('session', ['mcp__*'])).rejects.toMatchObject({ code: 'INVALID_GRANT' });
  });
});

describe('subagent and skill tools', () => {
  /** Tools declaring Claude Code's `Agent` and `Skill`, as tool-subagent and tool-skill do. */
  const claudeTools = definePlugin({
    name: 'claude-tools',
    version: '0.0.0',
    register(host) {
      host.tools.register(
        defineTool({
          name: 'task',
          description: 'Runs a subagent (recorded, not run).',
          input: z.object({ description: z.string(), prompt: z.string(), subagent_type: z.string() }),
          execute: () => 'done',
          external: { claude: { name: 'Agent', toExternal: (a) => ({ ...a }), fromExternal: (i) => ({ ...i }) } },
        }),
      );
      host.tools.register(
        defineTool({
          name: 'skill',
          description: 'Loads a skill.',
          input: z.object({ name: z.string() }),
          execute: () => 'loaded',
          external: { claude: { name: 'Skill', toExternal: (a) => ({ skill: a.name }), fromExternal: (i) => ({ name: i.skill }) } },
        }),
      );
    },
  });

  it('applies Task(…) rules to the tool Claude Code calls Agent, and Skill(name:*) to that skill', async () => {
    settingsFile('project', '{ "permissions": { "deny": ["Task(db-admin)", "Skill(release:*)"], "allow": ["Task", "Skill(lint *)"] } }\n');
    const perms = permissions({ projectDir: project.dir, homeDir: project.home });
    const t = await createTestHost({ plugins: [claudeTools, perms], approval: () => 'rejected' });
    const run = (name: string, args: Record<string, unknown>) =>
      t.host.runStep({ calls: [{ id: `c${name}${JSON.stringify(args)}`, name, args }] });
    const outcome = async (name: string, args: Record<string, unknown>) => (await run(name, args)).results[0]?.outcome;
    expect(await outcome('task', { description: 'd', prompt: 'p', subagent_type: 'db-admin' })).toMatchObject({
      status: 'denied',
      stage: 'pre-execute',
    });
    expect(await outcome('task', { description: 'd', prompt: 'p', subagent_type: 'planner' })).toMatchObject({ status: 'ok' });
    expect(await outcome('skill', { name: 'release' })).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect(await outcome('skill', { name: 'lint' })).toMatchObject({ status: 'ok' });
    expect(await outcome('skill', { name: 'lint-fix' })).toMatchObject({ status: 'denied', stage: 'approval' });
  });
});

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyToolDefinition } from '@deepseek-ai/dsh-core';
import { createTestHost, scriptedApproval } from '@deepseek-ai/dsh-core/testing';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeProject, type Project, skillText } from './fixtures/project.js';
import { allowedToolCovers, compileAllowedTool, splitAllowedTools, toolSkill } from './index.js';

describe('allowed-tools entries', () => {
  const bash = {
    name: 'bash',
    external: { claude: { name: 'Bash', toExternal: (a: object) => a, fromExternal: (a: object) => a } },
  } as unknown as AnyToolDefinition;
  const fetchTool = {
    name: 'web_fetch',
    external: { claude: { name: 'WebFetch', toExternal: (a: object) => a, fromExternal: (a: object) => a } },
  } as unknown as AnyToolDefinition;
  const mcp = { name: 'mcp__github__create_issue' } as unknown as AnyToolDefinition;
  const covers = (entry: string, tool: AnyToolDefinition, args: Record<string, unknown>) => {
    const compiled = compileAllowedTool(entry);
    if ('unsupported' in compiled) throw new Error(compiled.unsupported);
    return allowedToolCovers(compiled, tool, args);
  };

  it('splits a string on spaces and commas outside parentheses, or takes a list', () => {
    expect(splitAllowedTools('Read, Grep Bash(git diff *)  WebFetch(domain:example.com)')).toEqual([
      'Read',
      'Grep',
      'Bash(git diff *)',
      'WebFetch(domain:example.com)',
    ]);
    expect(splitAllowedTools(['Read', 'Bash(npm run *)'])).toEqual(['Read', 'Bash(npm run *)']);
    expect(splitAllowedTools(undefined)).toEqual([]);
    expect(splitAllowedTools({ Read: true })).toBeUndefined();
    expect(splitAllowedTools([1])).toBeUndefined();
  });

  it('matches whole tools by our name, their Claude Code name, or a glob', () => {
    expect(covers('Bash', bash, { command: 'rm -rf /' })).toBe(true);
    expect(covers('bash', bash, { command: 'ls' })).toBe(true);
    expect(covers('Read', bash, { command: 'ls' })).toBe(false);
    expect(covers('mcp__github__*', mcp, {})).toBe(true);
    expect(covers('mcp__gitlab__*', mcp, {})).toBe(false);
  });

  it('matches Bash command patterns, and never a command that chains, substitutes or redirects', () => {
    expect(covers('Bash(git diff:*)', bash, { command: 'git diff --stat' })).toBe(true);
    expect(covers('Bash(git diff:*)', bash, { command: 'git diff' })).toBe(true);
    expect(covers('Bash(git diff:*)', bash, { command: 'git difftool' })).toBe(false);
    expect(covers('Bash(git diff *)', bash, { command: 'git diff HEAD~1' })).toBe(true);
    expect(covers('Bash(git diff *)', bash, { command: 'git diff' })).toBe(true);
    expect(covers('Bash(npm test)', bash, { command: 'npm test' })).toBe(true);
    expect(covers('Bash(npm test)', bash, { command: 'npm test --watch' })).toBe(false);
    for (const command of [
      'git diff; rm -rf x',
      'git diff && curl x',
      'git diff | sh',
      'git diff $(rm x)',
      'git diff `rm x`',
      'git diff > out',
      'git diff\nrm x',
    ]) {
      expect(covers('Bash(git diff:*)', bash, { command })).toBe(false);
    }
  });

  it('matches WebFetch by exact host, and says which specifiers it cannot honour', () => {
    expect(covers('WebFetch(domain:example.com)', fetchTool, { url: 'https://example.com/a' })).toBe(true);
    expect(covers('WebFetch(domain:example.com)', fetchTool, { url: 'https://evil.com/?example.com' })).toBe(false);
    expect(covers('WebFetch(domain:example.com)', fetchTool, { url: 'not a url' })).toBe(false);
    expect(compileAllowedTool('Edit(src/**)')).toHaveProperty('unsupported');
    expect(compileAllowedTool('Bash(')).toHaveProperty('unsupported');
  });
});

let p: Project;
beforeEach(() => {
  p = makeProject();
  p.skill('.claude/skills', 'greeter', skillText(['name: greeter', 'description: Greets.', 'allowed-tools: Bash(echo:*)']));
});
afterEach(() => p.dispose());

/**
 * A host that asks for every call, whose user approves loading a skill and
 * rejects everything else: only a pre-approval runs a command.
 */
async function askingHost(rules?: { deny?: string[]; ask?: string[] }) {
  const skills = toolSkill({ projectDir: p.dir, homeDir: p.home });
  const approval = scriptedApproval((request) => (request.tool.name === 'skill' ? 'allowed-once' : 'rejected'));
  const perms =
    rules === undefined ? [] : [permissions({ projectDir: p.dir, homeDir: p.home, settingsFiles: false, grantsFile: false, rules })];
  const t = await createTestHost({
    plugins: [toolBash({ cwd: p.dir, sandbox: { provider: 'none' } }), skills, ...perms],
    defaultDecision: 'ask',
    approval: approval.provider,
  });
  const asked = () => approval.requests.filter((r) => r.tool.name !== 'skill').map((r) => r.args.command);
  return { ...t, skills, asked };
}

describe('allowed-tools while a skill is active (a pre-execute tap)', () => {
  it('runs a pre-approved command without asking once the skill is loaded, and asks for everything else', async () => {
    const t = await askingHost();
    expect(await t.call('bash', { command: 'echo before' })).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(await t.call('skill', { name: 'greeter' })).toMatchObject({ status: 'ok' });
    expect(t.skills.active()).toEqual(['greeter']);
    const echo = await t.call('bash', { command: 'echo hello' });
    expect(echo).toMatchObject({ status: 'ok', output: { stdout: 'hello\n' } });
    const chained = await t.call('bash', { command: 'echo hi; touch pwned' });
    expect(chained).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(existsSync(join(p.dir, 'pwned'))).toBe(false);
    expect(await t.call('bash', { command: 'touch other' })).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(t.asked()).toEqual(['echo before', 'echo hi; touch pwned', 'touch other']);
  });

  it('ends the grant when the turn ends', async () => {
    const t = await askingHost();
    await t.call('skill', { name: 'greeter' });
    t.skills.endTurn();
    expect(t.skills.active()).toEqual([]);
    expect(await t.call('bash', { command: 'echo again' })).toMatchObject({ status: 'denied', stage: 'approval' });
  });

  it('leaves deny and ask rules of the permissions plugin in force', async () => {
    const t = await askingHost({ deny: ['Bash(echo secret:*)'], ask: ['Bash(echo careful:*)'] });
    await t.call('skill', { name: 'greeter' });
    expect(await t.call('bash', { command: 'echo fine' })).toMatchObject({ status: 'ok' });
    expect(await t.call('bash', { command: 'echo secret' })).toMatchObject({ status: 'denied', stage: 'pre-execute' });
    expect(await t.call('bash', { command: 'echo careful' })).toMatchObject({ status: 'denied', stage: 'approval' });
  });

  it('does not overrule an earlier tap that asked', async () => {
    const t = await askingHost();
    t.host.hooks.preExecute.tap({ name: 'test/hook-asks', stage: 0 }, (_state, info) =>
      info.tool.name === 'bash' ? { decision: 'ask', reason: 'a hook wants a human' } : undefined,
    );
    await t.call('skill', { name: 'greeter' });
    expect(await t.call('bash', { command: 'echo hello' })).toMatchObject({ status: 'denied', stage: 'approval' });
  });

  it('activates nothing when the skill call fails or its result is withheld', async () => {
    const t = await askingHost();
    t.host.hooks.postExecute.tap('test/block-skill', (state) =>
      state.tool?.name === 'skill' && state.outcome.status === 'ok' ? { block: 'not now' } : undefined,
    );
    expect(await t.call('skill', { name: 'greeter' })).toMatchObject({ status: 'blocked' });
    expect(await t.call('skill', { name: 'missing' })).toMatchObject({ status: 'error' });
    expect(t.skills.active()).toEqual([]);
    expect(await t.call('bash', { command: 'echo hello' })).toMatchObject({ status: 'denied', stage: 'approval' });
  });

  it('grants what the skill returned held, even when a reload changes the skill before the call ends', async () => {
    const t = await askingHost();
    t.host.hooks.postExecute.tap('test/edit-and-reload', async (state) => {
      if (state.tool?.name !== 'skill') return;
      p.skill('.claude/skills', 'greeter', skillText(['description: Greets.', 'allowed-tools: Bash(touch:*)']));
      await t.skills.reload();
    });
    await t.call('skill', { name: 'greeter' });
    expect(await t.call('bash', { command: 'echo hello' })).toMatchObject({ status: 'ok' });
    expect(await t.call('bash', { command: 'touch other' })).toMatchObject({ status: 'denied', stage: 'approval' });
  });

  it('activates the skill by name when a post-execute tap replaced its output', async () => {
    const t = await askingHost();
    t.host.hooks.postExecute.tap('test/replace', (state) =>
      state.tool?.name === 'skill' ? { replaceOutput: { replaced: true } } : undefined,
    );
    expect(await t.call('skill', { name: 'greeter' })).toMatchObject({ status: 'ok', output: { replaced: true } });
    expect(t.skills.active()).toEqual(['greeter']);
    expect(await t.call('bash', { command: 'echo hello' })).toMatchObject({ status: 'ok' });
  });

  it('can be turned off', async () => {
    const skills = toolSkill({ projectDir: p.dir, homeDir: p.home, allowedTools: false });
    const t = await createTestHost({
      plugins: [toolBash({ cwd: p.dir, sandbox: { provider: 'none' } }), skills],
      defaultDecision: 'ask',
      approval: scriptedApproval((r) => (r.tool.name === 'skill' ? 'allowed-once' : 'rejected')).provider,
    });
    await t.call('skill', { name: 'greeter' });
    expect(await t.call('bash', { command: 'echo hello' })).toMatchObject({ status: 'denied', stage: 'approval' });
  });
});

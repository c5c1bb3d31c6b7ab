import { definePlugin, defineTool, z } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import * as shared from '@deepseek-ai/dsh-rules';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeProject, type Project } from './fixtures/project.js';
import { fixtureTools } from './fixtures/tools.js';
import * as api from './index.js';
import { checkRules, matchRule, PermissionsError, parseRule, permissions } from './index.js';

let project: Project;
beforeEach(() => {
  project = makeProject();
});
afterEach(() => project.dispose());

describe('the rule syntax from @deepseek-ai/dsh-rules', () => {
  it('is re-exported unchanged, so both packages read a rule the same way', () => {
    expect([
      api.splitCommand,
      api.RuleSet,
      api.coverage,
      api.subjectOf,
      api.defaultAnchors,
      api.categoryOf,
      api.kindOf,
      api.formatRule,
    ]).toEqual([
      shared.splitCommand,
      shared.RuleSet,
      shared.coverage,
      shared.subjectOf,
      shared.defaultAnchors,
      shared.categoryOf,
      shared.kindOf,
      shared.formatRule,
    ]);
    expect(api.RUNTIME_ARGUMENT).toBe(shared.RUNTIME_ARGUMENT);
  });

  it('keeps throwing PermissionsError with INVALID_RULE from parseRule, matchRule and checkRules', () => {
    for (const run of [
      () => parseRule('Bash(git *'),
      () => matchRule('Bash(', 'Bash', { command: 'x' }),
      () => checkRules({ deny: ['Bash()'] }, 'Bash', { command: 'x' }),
    ]) {
      expect(run).toThrow(PermissionsError);
      expect(run).toThrow(expect.objectContaining({ code: 'INVALID_RULE', rule: expect.stringMatching(/^Bash\(/) }));
    }
  });
});

/** An MCP tool as the MCP plugin registers it: named `mcp__<server>__<tool>`, no Claude mapping. */
const mcpTools = definePlugin({
  name: 'mcp-like',
  version: '0.0.0',
  register(host) {
    for (const name of ['mcp__github__create_issue', 'mcp__github__list_issues', 'mcp__gitlab__create_issue']) {
      host.tools.register(defineTool({ name, description: 'An MCP tool.', input: z.object({ title: z.string() }), execute: () => 'done' }));
    }
  },
});

async function hostWith(rules: { allow?: string[]; deny?: string[]; ask?: string[] }) {
  const perms = permissions({ projectDir: project.dir, homeDir: project.home, settingsFiles: false, rules });
  const asked: string[] = [];
  const t = await createTestHost({
    plugins: [fixtureTools(), mcpTools, perms],
    approval: perms.approval((request) => {
      asked.push(request.call.name);
      return 'rejected';
    }),
  });
  const status = async (name: string) => (await t.call(name, { title: 'x' })).status;
  return { status, asked };
}

describe('MCP tool rules', () => {
  it('allows every tool of a server with mcp__server__* and with mcp__server', async () => {
    for (const rule of ['mcp__github__*', 'mcp__github']) {
      const { status, asked } = await hostWith({ allow: [rule] });
      expect(await status('mcp__github__create_issue')).toBe('ok');
      expect(await status('mcp__github__list_issues')).toBe('ok');
      expect(await status('mcp__gitlab__create_issue')).toBe('denied');
      expect(asked).toEqual(['mcp__gitlab__create_issue']);
    }
  });

  it('denies a server or a tool pattern, whatever allows it', async () => {
    const { status } = await hostWith({ allow: ['mcp__github__*'], deny: ['mcp__github__create*'] });
    expect(await status('mcp__github__create_issue')).toBe('denied');
    expect(await status('mcp__github__list_issues')).toBe('ok');
    const server = await hostWith({ allow: ['mcp__github__list_issues'], deny: ['mcp__github'] });
    expect(await server.status('mcp__github__list_issues')).toBe('denied');
  });

  it('asks for an ask rule naming the server even when a tool rule allows', async () => {
    const { status, asked } = await hostWith({ allow: ['mcp__github__create_issue'], ask: ['mcp__github'] });
    expect(await status('mcp__github__create_issue')).toBe('denied');
    expect(asked).toEqual(['mcp__github__create_issue']);
  });
});

import { join } from 'node:path';
import { ErrorCode } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeProject, type Project, skillText } from './fixtures/project.js';
import { discoverSkills, SkillErrorCode, skillCatalog, skillExternal, skillsSummary, toolSkill } from './index.js';

let p: Project;
beforeEach(() => {
  p = makeProject();
  p.skill(
    '.claude/skills',
    'release',
    skillText(['name: release', 'description: Cut a release.', 'allowed-tools: Bash(git tag:*)'], '# Release\n\n1. Tag.\n'),
  );
  p.write('.claude/skills/release/checklist.md', '- [ ] tag\n');
  p.skill(
    '.claude/skills',
    'secret-ops',
    skillText(['name: secret-ops', 'description: Only for people.', 'disable-model-invocation: true']),
  );
});
afterEach(() => p.dispose());

describe('the skill tool', () => {
  it('returns the instructions and bundled files, logs skill/loaded, and shows both cards', async () => {
    const t = await createTestHost({ plugins: [toolSkill({ projectDir: p.dir, homeDir: p.home })] });
    const outcome = await t.call('skill', { name: 'release' });
    const directory = join(p.dir, '.claude/skills/release');
    expect(outcome).toMatchObject({
      status: 'ok',
      output: {
        name: 'release',
        directory,
        instructions: '# Release\n\n1. Tag.\n',
        files: ['checklist.md'],
        allowedTools: ['Bash(git tag:*)'],
      },
    });
    expect(
      t.host.events
        .list()
        .filter((e) => e.type === 'skill/loaded')
        .map((e) => e.data),
    ).toEqual([{ name: 'release', directory, source: 'project', allowedTools: ['Bash(git tag:*)'], files: 1 }]);
    expect(t.ui.cards.map((c) => c.card.title)).toEqual(['Load skill release', 'Skill release']);
    expect(t.ui.cards[1]?.card).toMatchObject({ summary: '1 bundled file; pre-approves Bash(git tag:*)', body: 'checklist.md' });
  });

  it('refuses an unknown skill, listing the available ones, and a skill only people may start', async () => {
    const t = await createTestHost({ plugins: [toolSkill({ projectDir: p.dir, homeDir: p.home })] });
    const unknown = await t.call('skill', { name: 'nope' });
    expect(unknown).toMatchObject({
      status: 'error',
      error: { code: SkillErrorCode.NOT_FOUND, message: expect.stringContaining('available: release') },
    });
    expect(await t.call('skill', { name: 'secret-ops' })).toMatchObject({
      status: 'error',
      error: { code: SkillErrorCode.NOT_MODEL_INVOCABLE },
    });
    expect(await t.call('skill', {})).toMatchObject({ status: 'error', error: { code: ErrorCode.INVALID_ARGS } });
    expect(t.host.events.list().some((e) => e.type === 'skill/loaded')).toBe(false);
  });

  it('gives the system prompt each skill the model may load, and nothing on a host without the plugin', async () => {
    const t = await createTestHost({ plugins: [toolSkill({ projectDir: p.dir, homeDir: p.home })] });
    const summary = skillsSummary(t.host);
    expect(summary).toContain('- release: Cut a release.');
    expect(summary).toContain('call the `skill` tool');
    expect(summary).not.toContain('secret-ops');
    expect(skillCatalog(t.host)?.skills.map((s) => s.name)).toEqual(['release', 'secret-ops']);
    const bare = await createTestHost();
    expect(skillsSummary(bare.host)).toBe('');
    expect(skillCatalog(bare.host)).toBeUndefined();
  });

  it('records each problem found as a host diagnostic with its code', async () => {
    p.skill('.claude/skills', 'broken', '# no front matter\n');
    const t = await createTestHost({ plugins: [toolSkill({ projectDir: p.dir, homeDir: p.home })] });
    expect(t.host.diagnostics.list().map((d) => [d.code, d.source])).toEqual([[SkillErrorCode.NO_FRONT_MATTER, 'tool-skill']]);
  });

  it('uses a catalog found beforehand, and finds new skills on reload', async () => {
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    const plugin = toolSkill({ catalog, projectDir: p.dir, homeDir: p.home });
    expect(plugin.catalog()).toBe(catalog);
    const t = await createTestHost({ plugins: [plugin] });
    expect(await t.call('skill', { name: 'later' })).toMatchObject({ status: 'error', error: { code: SkillErrorCode.NOT_FOUND } });
    p.skill('.agents/skills', 'later', skillText(['name: later', 'description: Added later.']));
    await plugin.reload();
    expect(await t.call('skill', { name: 'later' })).toMatchObject({ status: 'ok' });
    expect(plugin.summary()).toContain('- later: Added later.');
  });

  it('returns an edited SKILL.md once reloaded, never the output made for the old file', async () => {
    const plugin = toolSkill({ projectDir: p.dir, homeDir: p.home });
    const t = await createTestHost({ plugins: [plugin] });
    expect(await t.call('skill', { name: 'release' })).toMatchObject({ output: { instructions: '# Release\n\n1. Tag.\n' } });
    p.skill('.claude/skills', 'release', skillText(['description: Cut a release.', 'allowed-tools: Read'], '# Release\n\n1. Bump.\n'));
    await plugin.reload();
    expect(await t.call('skill', { name: 'release' })).toMatchObject({
      status: 'ok',
      output: { instructions: '# Release\n\n1. Bump.\n', allowedTools: ['Read'] },
    });
  });

  it('is Claude Code’s Skill and Gemini’s activate_skill', async () => {
    const t = await createTestHost({ plugins: [toolSkill({ projectDir: p.dir, homeDir: p.home })] });
    expect(t.host.tools.findExternal('claude', 'Skill')?.name).toBe('skill');
    expect(t.host.tools.findExternal('gemini', 'activate_skill')?.name).toBe('skill');
    expect(skillExternal.claude?.toExternal({ name: 'release' })).toEqual({ skill: 'release' });
    expect(skillExternal.claude?.fromExternal({ skill: '/release', args: 'x' })).toEqual({ name: 'release' });
    expect(skillExternal.claude?.fromExternal({ command: 'release' })).toEqual({ name: 'release' });
    expect(skillExternal.gemini?.fromExternal({ name: 'release' })).toEqual({ name: 'release' });
  });

  it('rejects bad options naming the field', () => {
    expect(() => toolSkill({ name: 'no spaces' })).toThrow(/toolSkill: name:/);
    expect(() => toolSkill({ maxFiles: 0 })).toThrow(/toolSkill: maxFiles:/);
    expect(() => toolSkill({ surprise: true } as never)).toThrow(/toolSkill/);
  });
});

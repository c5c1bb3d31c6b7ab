import { join } from 'node:path';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeProject, type Project, skillText } from './fixtures/project.js';
import { discoverSkills, SkillErrorCode, skillsSummary, toolSkill } from './index.js';

// Skills in the shapes they take in public `.claude/skills` folders and
// Claude Code plugins, which Claude Code loads: each must load here too.

let p: Project;
beforeEach(() => {
  p = makeProject();
});
afterEach(() => p.dispose());

const problemsOf = (catalog: Awaited<ReturnType<typeof discoverSkills>>) =>
  catalog.problems.map((x) => [x.path.split('/').at(-2), x.code, x.skipped]);

describe('a SKILL.md without front matter', () => {
  it('loads, named after its folder and described by the first paragraph of its instructions', async () => {
    p.skill(
      '.claude/skills',
      'release-notes',
      'Write release notes from the commits since the last tag,\ngrouped by type (feat, fix, chore).\n\n## Steps\n\n1. `git log $(git describe --tags --abbrev=0)..HEAD`\n',
    );
    p.skill('.claude/skills', 'db-migrations', '\uFEFF# Database migrations\n\nCreate and check migrations with `pnpm db:migrate`.\n');
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.get('release-notes')).toMatchObject({
      name: 'release-notes',
      label: 'release-notes',
      description: 'Write release notes from the commits since the last tag, grouped by type (feat, fix, chore).',
      body: expect.stringMatching(/^Write release notes/),
      allowedTools: [],
      modelInvocable: true,
    });
    // A heading is a block of its own: it is the first paragraph.
    expect(catalog.get('db-migrations')).toMatchObject({
      description: 'Database migrations',
      body: '# Database migrations\n\nCreate and check migrations with `pnpm db:migrate`.\n',
    });
    expect(problemsOf(catalog)).toEqual([
      ['db-migrations', SkillErrorCode.NO_FRONT_MATTER, false],
      ['release-notes', SkillErrorCode.NO_FRONT_MATTER, false],
    ]);
  });

  it('is still left out when it holds no text at all, or opens a front matter it never closes', async () => {
    p.skill('.claude/skills', 'empty', '\n\n');
    p.skill('.claude/skills', 'unclosed', '---\nname: unclosed\ndescription: Never closed.\n\n# Steps\n');
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.skills).toEqual([]);
    expect(problemsOf(catalog)).toEqual([
      ['empty', SkillErrorCode.NO_DESCRIPTION, true],
      ['unclosed', SkillErrorCode.BAD_FRONT_MATTER, true],
    ]);
  });
});

describe('a name that is a display label', () => {
  beforeEach(() => {
    // plugin-dev's skills are written like this; so are many generated ones.
    p.skill(
      '.claude/skills',
      'command-development',
      skillText([
        'name: Command Development',
        'description: This skill should be used when the user asks to "create a slash command".',
        'version: 0.2.0',
      ]),
    );
    p.skill(
      '.claude/skills',
      'version-bump',
      skillText(['name: claude-code-plugin-release', 'description: Automated semantic versioning and release workflow.']),
    );
  });

  it('loads, known by its folder name, with the name kept as its label and a warning', async () => {
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.skills.map((s) => [s.name, s.label])).toEqual([
      ['command-development', 'Command Development'],
      ['version-bump', 'claude-code-plugin-release'],
    ]);
    expect(problemsOf(catalog)).toEqual([
      ['command-development', SkillErrorCode.INVALID_NAME, false],
      ['version-bump', SkillErrorCode.NAME_MISMATCH, false],
    ]);
    expect(catalog.problems[0]?.message).toContain('the skill is "command-development" after its folder');
  });

  it('is listed to the model by its folder name, and the skill tool takes the folder name or the label', async () => {
    const t = await createTestHost({ plugins: [toolSkill({ projectDir: p.dir, homeDir: p.home })] });
    const summary = skillsSummary(t.host);
    expect(summary).toContain('- command-development: This skill should be used when the user asks to "create a slash command".');
    expect(summary).toContain('- version-bump: Automated semantic versioning and release workflow.');
    expect(summary).not.toContain('Command Development');
    const byFolder = await t.call('skill', { name: 'command-development' });
    const byLabel = await t.call('skill', { name: 'Command Development' });
    for (const outcome of [byFolder, byLabel]) {
      expect(outcome).toMatchObject({
        status: 'ok',
        output: { name: 'command-development', directory: join(p.dir, '.claude/skills/command-development') },
      });
    }
    expect(await t.call('skill', { name: 'claude-code-plugin-release' })).toMatchObject({ status: 'ok', output: { name: 'version-bump' } });
    expect(
      t.host.events
        .list()
        .filter((e) => e.type === 'skill/loaded')
        .map((e) => (e.data as { name: string }).name),
    ).toEqual(['command-development', 'command-development', 'version-bump']);
  });

  it('does not resolve a label that two skills share, nor one that is another skill’s folder name', async () => {
    p.skill('.claude/skills', 'helper-a', skillText(['name: Helper', 'description: A.']));
    p.skill('.claude/skills', 'helper-b', skillText(['name: Helper', 'description: B.']));
    p.skill('.claude/skills', 'deploy', skillText(['name: version-bump', 'description: Deploys.']));
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.get('Helper')).toBeUndefined();
    expect(catalog.get('version-bump')?.directory).toBe(join(p.dir, '.claude/skills/version-bump'));
    expect(catalog.get('deploy')?.label).toBe('version-bump');
  });

  it('lets a personal skill shadow a project skill of the same folder name, whatever their labels', async () => {
    p.skill(join(p.home, '.claude/skills'), 'version-bump', skillText(['name: Version Bump', 'description: Mine.']));
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.get('version-bump')).toMatchObject({ description: 'Mine.', source: 'user', label: 'Version Bump' });
    expect(catalog.problems.map((x) => x.code)).toContain(SkillErrorCode.DUPLICATE_NAME);
  });

  it('leaves out a folder whose name cannot name a skill', async () => {
    p.skill('.claude/skills', 'has space', skillText(['name: has-space', 'description: Folder name with a space.']));
    p.skill('.claude/skills', 'Snake_Case.v2', skillText(['description: Letters, digits, "_" and "." are fine.']));
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.skills.map((s) => s.name)).toEqual(['Snake_Case.v2', 'command-development', 'version-bump']);
    expect(catalog.problems).toContainEqual(
      expect.objectContaining({ code: SkillErrorCode.INVALID_NAME, skipped: true, path: join(p.dir, '.claude/skills/has space/SKILL.md') }),
    );
  });
});

describe('front matter that is not valid YAML', () => {
  it('loads when quoting values, as Claude Code retries, makes it read; with a warning', async () => {
    p.skill(
      '.claude/skills',
      'supply-chain',
      skillText([
        'name: supply-chain',
        'description: Detect agentic supply-chain risks: compromised dependencies, malicious plugins/tools/models, and untrusted update sources.',
        'allowed-tools: Read, Grep',
      ]),
    );
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.get('supply-chain')).toMatchObject({
      description:
        'Detect agentic supply-chain risks: compromised dependencies, malicious plugins/tools/models, and untrusted update sources.',
      allowedTools: ['Read', 'Grep'],
    });
    expect(catalog.problems).toEqual([
      expect.objectContaining({
        code: SkillErrorCode.BAD_YAML,
        skipped: false,
        message: expect.stringContaining('the value of "description"'),
      }),
    ]);
  });

  it('is still left out when quoting cannot make it read, reporting only why', async () => {
    p.skill(
      '.claude/skills',
      'reviewer',
      skillText(['name: Reviewer Helper', 'description: Use for reviews. Examples:', '<example>', 'user: "Review this"', '</example>']),
    );
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.skills).toEqual([]);
    expect(problemsOf(catalog)).toEqual([['reviewer', SkillErrorCode.BAD_YAML, true]]);
  });
});

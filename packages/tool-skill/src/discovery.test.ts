import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeProject, type Project, skillText } from './fixtures/project.js';
import { discoverSkills, SkillErrorCode } from './index.js';

let p: Project;
beforeEach(() => {
  p = makeProject();
});
afterEach(() => p.dispose());

const good = (name: string, description = `Does ${name} things.`) => skillText([`name: ${name}`, `description: ${description}`]);
const codes = (problems: readonly { code: string }[]) => problems.map((x) => x.code);

describe('discoverSkills', () => {
  it('finds skills in the user and project roots, personal first, and reports a shadowed duplicate', async () => {
    p.skill(join(p.home, '.claude/skills'), 'review', good('review', 'The personal review.'));
    p.skill('.claude/skills', 'review', good('review', 'The project review.'));
    p.skill('.claude/skills', 'deploy', good('deploy'));
    p.skill('.agents/skills', 'lint', good('lint'));
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.roots.map((r) => [r.path, r.source])).toEqual([
      [join(p.home, '.claude/skills'), 'user'],
      [join(p.dir, '.claude/skills'), 'project'],
      [join(p.dir, '.agents/skills'), 'project'],
    ]);
    expect(catalog.skills.map((s) => [s.name, s.source])).toEqual([
      ['review', 'user'],
      ['deploy', 'project'],
      ['lint', 'project'],
    ]);
    expect(catalog.get('review')?.description).toBe('The personal review.');
    expect(catalog.problems).toEqual([
      expect.objectContaining({ code: SkillErrorCode.DUPLICATE_NAME, path: join(p.dir, '.claude/skills/review/SKILL.md'), skipped: true }),
    ]);
    expect(catalog.directories).toEqual(catalog.skills.map((s) => s.directory));
  });

  it('reads the front matter, the instructions and the bundled files', async () => {
    p.skill(
      '.claude/skills',
      'pdf-forms',
      skillText(
        [
          'name: pdf-forms',
          'description: >-',
          '  Fill PDF forms.',
          '  Use for any PDF.',
          'allowed-tools: Read, Bash(python3 scripts/fill.py:*)',
        ],
        'Run the script.\n',
      ),
    );
    p.write('.claude/skills/pdf-forms/reference.md', '# Fields\n');
    p.write('.claude/skills/pdf-forms/scripts/fill.py', 'print(1)\n');
    p.write('.claude/skills/pdf-forms/.git/HEAD', 'ref\n');
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    const skill = catalog.get('pdf-forms');
    expect(skill).toMatchObject({
      description: 'Fill PDF forms. Use for any PDF.',
      body: 'Run the script.\n',
      directory: join(p.dir, '.claude/skills/pdf-forms'),
      allowedTools: ['Read', 'Bash(python3 scripts/fill.py:*)'],
      files: ['reference.md', 'scripts/fill.py'],
      modelInvocable: true,
    });
    expect(catalog.problems).toEqual([]);
  });

  it('never reads the real home when a home directory is given, and may leave the user root out', async () => {
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home, userSkills: false });
    expect(catalog.roots.every((r) => r.path.startsWith(p.dir))).toBe(true);
    expect(catalog.skills).toEqual([]);
    expect(catalog.problems).toEqual([]);
  });

  it('takes explicit roots in the given order, relative to the project', async () => {
    p.skill('team-skills', 'one', good('one'));
    p.skill('mine', 'one', good('one', 'Mine wins.'));
    const catalog = await discoverSkills({ projectDir: p.dir, roots: [{ path: 'mine', source: 'mine' }, 'team-skills'] });
    expect(catalog.get('one')).toMatchObject({ description: 'Mine wins.', source: 'mine' });
    expect(codes(catalog.problems)).toEqual([SkillErrorCode.DUPLICATE_NAME]);
  });

  it('follows a linked skill folder and reports its real directory', async () => {
    p.skill(join(p.base, 'dotfiles'), 'shared', good('shared'));
    mkdirSync(join(p.home, '.claude/skills'), { recursive: true });
    symlinkSync(join(p.base, 'dotfiles/shared'), join(p.home, '.claude/skills/shared'));
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.get('shared')?.directory).toBe(join(p.base, 'dotfiles/shared'));
  });
});

describe('bad skills are reported with a code and left out, never a crash', () => {
  const cases: [string, string | Buffer, string][] = [
    ['unclosed', '---\nname: unclosed\n\n# Instructions\n', SkillErrorCode.BAD_FRONT_MATTER],
    ['broken-yaml', skillText(['name: broken-yaml', 'description: "unclosed']), SkillErrorCode.BAD_YAML],
    ['bad-indent', skillText(['name: bad-indent', 'allowed-tools:', '  - Read', ' - Grep']), SkillErrorCode.BAD_YAML],
    ['duplicate-key', skillText(['name: duplicate-key', 'description: a', 'description: b']), SkillErrorCode.BAD_YAML],
    ['a-list', skillText(['- name', '- description']), SkillErrorCode.BAD_FRONT_MATTER],
    ['number-description', skillText(['name: number-description', 'description: 42']), SkillErrorCode.BAD_FRONT_MATTER],
    ['-leading-hyphen', skillText(['description: A folder name must start with a letter or digit.']), SkillErrorCode.INVALID_NAME],
    ['empty', skillText(['name: empty'], '\n\n'), SkillErrorCode.NO_DESCRIPTION],
    [
      'not-utf8',
      Buffer.concat([Buffer.from('---\nname: not-utf8\ndescription: x\n---\n'), Buffer.from([0xff, 0xfe, 0xfd])]),
      SkillErrorCode.UNREADABLE,
    ],
    [
      'alias-bomb',
      skillText([
        'name: alias-bomb',
        'a: &a ["x","x","x","x","x","x","x","x","x"]',
        'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
        'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
        'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
        'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
        'description: [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
      ]),
      SkillErrorCode.BAD_YAML,
    ],
  ];

  it.each(cases)('%s', async (folder, text, code) => {
    p.skill('.claude/skills', folder, text);
    p.skill('.claude/skills', 'zz-good', good('zz-good'));
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.skills.map((s) => s.name)).toEqual(['zz-good']);
    expect(catalog.problems).toEqual([
      expect.objectContaining({ code, skipped: true, path: join(p.dir, '.claude/skills', folder, 'SKILL.md') }),
    ]);
    expect(catalog.problems[0]?.message).toContain(join(p.dir, '.claude/skills', folder, 'SKILL.md'));
  });

  it('refuses a 5 MB SKILL.md by its size', async () => {
    p.skill('.claude/skills', 'huge', skillText(['name: huge', 'description: Huge.'], 'x'.repeat(5 * 1024 * 1024)));
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.skills).toEqual([]);
    expect(catalog.problems).toEqual([expect.objectContaining({ code: SkillErrorCode.TOO_LARGE, skipped: true })]);
    expect(catalog.problems[0]?.message).toMatch(/5242\d{3} bytes, more than the 262144 allowed/);
  });

  it('refuses a SKILL.md that links out of its folder, and leaves out a bundled link that does', async () => {
    const outside = p.write(join(p.base, 'elsewhere/SKILL.md'), skillText(['name: linked', 'description: Outside.']));
    mkdirSync(join(p.dir, '.claude/skills/linked'), { recursive: true });
    symlinkSync(outside, join(p.dir, '.claude/skills/linked/SKILL.md'));
    p.skill('.claude/skills', 'leaky', good('leaky'));
    p.write('.claude/skills/leaky/inside.md', 'fine\n');
    symlinkSync(join(p.base, 'elsewhere/SKILL.md'), join(p.dir, '.claude/skills/leaky/secret.md'));
    symlinkSync(join(p.dir, '.claude/skills/leaky/inside.md'), join(p.dir, '.claude/skills/leaky/alias.md'));
    symlinkSync(join(p.base, 'nowhere'), join(p.dir, '.claude/skills/leaky/dangling.md'));
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.skills.map((s) => s.name)).toEqual(['leaky']);
    expect(catalog.get('leaky')?.files).toEqual(['alias.md', 'inside.md']);
    expect(catalog.problems.map((x) => [x.code, x.skipped, x.path])).toEqual([
      [SkillErrorCode.SYMLINK_ESCAPE, false, join(p.dir, '.claude/skills/leaky/dangling.md')],
      [SkillErrorCode.SYMLINK_ESCAPE, false, join(p.dir, '.claude/skills/leaky/secret.md')],
      [SkillErrorCode.SYMLINK_ESCAPE, true, join(p.dir, '.claude/skills/linked/SKILL.md')],
    ]);
  });

  it('keeps a skill whose description or allowed-tools it can only partly use, and says so', async () => {
    p.skill('.claude/skills', 'long', skillText(['name: long', `description: ${'word '.repeat(300)}`, 'allowed-tools: 42']));
    p.skill(
      '.claude/skills',
      'paths',
      skillText(['name: paths', 'description: Paths.', 'allowed-tools: [Read, "Edit(src/**)", "Bash(git diff *)"]']),
    );
    p.skill('.claude/skills', 'untitled', skillText(['name: untitled'], '# Summarise the changelog\n\nSteps.\n'));
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.skills.map((s) => s.name)).toEqual(['long', 'paths', 'untitled']);
    expect(catalog.get('long')?.description).toHaveLength(1024);
    expect(catalog.get('paths')?.allowed.map((a) => a.entry)).toEqual(['Read', 'Bash(git diff *)']);
    expect(catalog.get('untitled')?.description).toBe('Summarise the changelog');
    expect(catalog.problems.map((x) => [x.code, x.skipped])).toEqual([
      [SkillErrorCode.DESCRIPTION_TOO_LONG, false],
      [SkillErrorCode.BAD_ALLOWED_TOOLS, false],
      [SkillErrorCode.ALLOWED_TOOL_UNSUPPORTED, false],
      [SkillErrorCode.NO_DESCRIPTION, false],
    ]);
  });

  it('reports a root that is not a folder, and ignores folders without SKILL.md and loose files', async () => {
    p.write('.agents/skills', 'not a folder');
    p.write('.claude/skills/notes.md', 'loose file');
    mkdirSync(join(p.dir, '.claude/skills/no-skill-here'), { recursive: true });
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
    expect(catalog.skills).toEqual([]);
    expect(catalog.problems.map((x) => [x.code, x.path])).toEqual([[SkillErrorCode.ROOT_UNREADABLE, join(p.dir, '.agents/skills')]]);
  });

  it('lists at most maxFiles bundled files and says it cut the list', async () => {
    p.skill('.claude/skills', 'many', good('many'));
    for (let i = 0; i < 5; i += 1) p.write(`.claude/skills/many/f${i}.md`, 'x');
    const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home, maxFiles: 3 });
    expect(catalog.get('many')?.files).toEqual(['f0.md', 'f1.md', 'f2.md']);
    expect(codes(catalog.problems)).toEqual([SkillErrorCode.FILES_TRUNCATED]);
  });

  it('rejects bad options naming the field', async () => {
    await expect(discoverSkills({ maxSkillBytes: -1 })).rejects.toThrow(/discoverSkills: maxSkillBytes:/);
    await expect(discoverSkills({ roots: [''] })).rejects.toThrow(/discoverSkills: roots\.0:/);
  });
});

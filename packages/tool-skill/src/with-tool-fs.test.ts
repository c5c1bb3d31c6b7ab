import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeProject, type Project, skillText } from './fixtures/project.js';
import { discoverSkills, type SkillOutput, toolSkill } from './index.js';

let p: Project;
beforeEach(() => {
  p = makeProject();
  // A personal skill: outside the project, so only its read-only root makes it readable.
  p.skill(join(p.home, '.claude/skills'), 'style', skillText(['name: style', 'description: House style.'], 'Read reference.md first.\n'));
  p.write(join(p.home, '.claude/skills/style/reference.md'), 'Use short sentences.\n');
  p.write(join(p.home, 'private.txt'), 'not for the model\n');
  symlinkSync(join(p.home, 'private.txt'), join(p.home, '.claude/skills/style/leak.txt'));
  mkdirSync(join(p.dir, 'src'));
});
afterEach(() => p.dispose());

async function host() {
  const catalog = await discoverSkills({ projectDir: p.dir, homeDir: p.home });
  return createTestHost({
    plugins: [toolFs({ cwd: p.dir, roots: [p.dir], readOnlyRoots: catalog.directories }), toolSkill({ catalog })],
  });
}

describe('bundled files through the real tool-fs', () => {
  it('reads a bundled file by the path the skill tool gave', async () => {
    const t = await host();
    const loaded = await t.call('skill', { name: 'style' });
    const out = (loaded.status === 'ok' ? loaded.output : undefined) as unknown as SkillOutput;
    expect(out.files).toEqual(['reference.md']);
    const read = await t.call('read', { file_path: join(out.directory, out.files[0] as string) });
    expect(read).toMatchObject({ status: 'ok', output: { content: expect.stringContaining('Use short sentences.') } });
  });

  it('never writes into a skill folder', async () => {
    const t = await host();
    const file = join(p.home, '.claude/skills/style/reference.md');
    await t.call('read', { file_path: file });
    const write = await t.call('write', { file_path: file, content: 'rewritten' });
    expect(write).toMatchObject({ status: 'error', error: { code: 'FS_READ_ONLY_ROOT' } });
    expect(readFileSync(file, 'utf8')).toBe('Use short sentences.\n');
  });

  it('refuses a link out of the skill folder and the rest of the home directory', async () => {
    const t = await host();
    const leak = await t.call('read', { file_path: join(p.home, '.claude/skills/style/leak.txt') });
    expect(leak).toMatchObject({ status: 'error', error: { code: 'FS_SYMLINK_ESCAPE' } });
    const outside = await t.call('read', { file_path: join(p.home, 'private.txt') });
    expect(outside).toMatchObject({ status: 'error', error: { code: 'FS_PATH_OUTSIDE_ROOTS' } });
  });
});

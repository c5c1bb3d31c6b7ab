import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { agentFile, cleanupAll, scriptedModel, tempProject } from './fixtures/kit.js';
import { SubagentErrorCode, toolSubagent } from './index.js';

afterEach(cleanupAll);

const model = scriptedModel({}).model;

async function load(
  setup: (p: ReturnType<typeof tempProject>) => void,
  extra: Parameters<typeof toolSubagent>[0] extends infer O ? Partial<O> : never = {},
) {
  const p = tempProject();
  setup(p);
  const plugin = toolSubagent({ model, projectDir: p.dir, homeDir: p.home, ...extra });
  const t = await createTestHost({ plugins: [plugin] });
  return { plugin, host: t.host, project: p };
}

describe('subagent definitions from .claude/agents', () => {
  it('reads name, description, tools (a string or a list), model and the prompt', async () => {
    const { plugin } = await load((p) => {
      p.write(
        '.claude/agents/reviewer.md',
        agentFile('reviewer', { description: 'Reviews diffs.', tools: 'Read, Grep Glob', model: 'inherit' }, 'You review.'),
      );
      p.write(
        '.claude/agents/lister.md',
        '---\nname: lister\ndescription: Lists.\ntools:\n  - glob\n  - LS\ncolor: blue\n---\n\nList things.\n',
      );
    });
    expect(plugin.catalog().get('reviewer')).toMatchObject({
      name: 'reviewer',
      description: 'Reviews diffs.',
      tools: ['Read', 'Grep', 'Glob'],
      model: 'inherit',
      prompt: 'You review.',
      source: 'project',
    });
    expect(plugin.catalog().get('lister')).toMatchObject({ tools: ['glob', 'LS'], prompt: 'List things.' });
    expect(plugin.catalog().agents.map((a) => a.name)).toEqual(['lister', 'reviewer', 'general-purpose']);
    expect(plugin.problems()).toEqual([]);
  });

  it('gives definitions in code precedence over the project, and the project over the user', async () => {
    const { plugin } = await load(
      (p) => {
        p.write('~/.claude/agents/a.md', agentFile('shared', { description: 'user' }, 'U'));
        p.write('~/.claude/agents/b.md', agentFile('mine', { description: 'user only' }, 'M'));
        p.write('.claude/agents/shared.md', agentFile('shared', { description: 'project' }, 'P'));
        p.write('.claude/agents/coded.md', agentFile('coded', { description: 'project' }, 'P'));
      },
      { agents: [{ name: 'coded', description: 'code', prompt: 'C' }] },
    );
    const c = plugin.catalog();
    expect([c.get('shared')?.description, c.get('mine')?.source, c.get('coded')?.description]).toEqual(['project', 'user', 'code']);
    expect(plugin.problems()).toEqual([]);
  });

  it('does not read the user folder when userAgents is false', async () => {
    const { plugin } = await load((p) => p.write('~/.claude/agents/a.md', agentFile('mine', { description: 'user' }, 'U')), {
      userAgents: false,
    });
    expect(plugin.catalog().get('mine')).toBeUndefined();
  });

  it('reports each bad file with its code, leaves it out, and keeps the good ones', async () => {
    const { plugin, host } = await load(
      (p) => {
        p.write('.claude/agents/good.md', agentFile('good', { description: 'fine' }, 'G'));
        p.write('.claude/agents/no-front.md', 'just text\n');
        p.write('.claude/agents/bad-yaml.md', '---\nname: bad-yaml\ndescription: "unclosed\n---\n');
        p.write('.claude/agents/unclosed.md', '---\nname: unclosed\ndescription: never closed\n');
        p.write('.claude/agents/list.md', '---\n- a\n- b\n---\n');
        p.write('.claude/agents/bad-name.md', agentFile('has space', { description: 'x' }, ''));
        p.write('.claude/agents/no-desc.md', '---\nname: nodesc\n---\n');
        p.write('.claude/agents/bad-tools.md', '---\nname: badtools\ndescription: x\ntools: 3\n---\n');
        p.write('.claude/agents/dup.md', agentFile('good', { description: 'again' }, ''));
        p.write('.claude/agents/spec.md', agentFile('spec', { description: 'x', tools: 'read, Bash(git *)', model: 'fast' }, ''));
        p.write('.claude/agents/big.md', agentFile('big', { description: 'x' }, 'y'.repeat(300)));
        p.write('.claude/agents/binary.md', Buffer.from([0xff, 0xfe, 0x00]).toString('latin1'));
      },
      { maxDefinitionBytes: 200 },
    );
    const codes = plugin.problems().map((pr) => [pr.path.split('/').pop(), pr.code, pr.skipped]);
    expect(codes).toEqual(
      expect.arrayContaining([
        ['no-front.md', SubagentErrorCode.NO_FRONT_MATTER, true],
        ['bad-yaml.md', SubagentErrorCode.BAD_YAML, true],
        ['list.md', SubagentErrorCode.BAD_FRONT_MATTER, true],
        ['unclosed.md', SubagentErrorCode.BAD_FRONT_MATTER, true],
        ['bad-name.md', SubagentErrorCode.INVALID_NAME, true],
        ['no-desc.md', SubagentErrorCode.NO_DESCRIPTION, true],
        ['bad-tools.md', SubagentErrorCode.BAD_TOOLS, true],
        ['good.md', SubagentErrorCode.DUPLICATE_NAME, true],
        ['spec.md', SubagentErrorCode.TOOL_SPECIFIER_IGNORED, false],
        ['spec.md', SubagentErrorCode.MODEL_UNKNOWN, false],
        ['big.md', SubagentErrorCode.TOO_LARGE, true],
      ]),
    );
    expect(codes).toHaveLength(12);
    expect(plugin.catalog().agents.map((a) => a.name)).toEqual(['good', 'spec', 'general-purpose']);
    // The entry with a specifier is left out: the list only narrows.
    expect(plugin.catalog().get('spec')?.tools).toEqual(['read']);
    expect(plugin.catalog().get('good')?.description).toBe('again');
    expect(host.diagnostics.list().map((d) => d.code)).toEqual(expect.arrayContaining(plugin.problems().map((pr) => pr.code)));
  });

  it('refuses bad options naming the field', () => {
    expect(() => toolSubagent({ model: 'nope' as never })).toThrow(/toolSubagent: model: must be a Model function/);
    expect(() => toolSubagent({ model, maxDepth: 0 })).toThrow(/toolSubagent: maxDepth/);
  });
});

import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, scriptedModel, tempProject } from './fixtures/kit.js';
import { SubagentErrorCode, toolSubagent } from './index.js';

// Agent definitions in the shape many public `.claude/agents` folders and
// Claude Code plugins use: one long unquoted `description` with `: ` inside
// (labels of `<example>` dialogues) and `\n` written where a line breaks.
// Strict YAML refuses them; Claude Code loads them.

afterEach(cleanupAll);

const model = scriptedModel({}).model;

const errorAuditor = [
  '---',
  'name: error-auditor',
  'description: Use this agent when a change adds error handling that could hide failures: empty catch blocks, silent fallbacks, swallowed promise rejections. Examples:\\n\\n<example>\\nContext: The user wrapped an API call in try/catch.\\nuser: "I added error handling to the client, can you check it?"\\nassistant: "I\'ll have the error-auditor agent look for failures it hides."\\n</example>',
  'tools: Read, Grep, Glob',
  'model: inherit',
  'color: yellow',
  '---',
  '',
  'You audit error handling. Report each place where a failure is hidden, with file and line.',
  '',
].join('\n');

async function load(files: Readonly<Record<string, string>>) {
  const p = tempProject();
  for (const [path, text] of Object.entries(files)) p.write(path, text);
  const plugin = toolSubagent({ model, projectDir: p.dir, homeDir: p.home, userAgents: false });
  const t = await createTestHost({ plugins: [plugin] });
  return { plugin, host: t.host };
}

describe('agent definitions Claude Code loads though strict YAML refuses them', () => {
  it('loads a description with ": " inside as written, its "\\n" as line breaks, with a warning', async () => {
    const { plugin, host } = await load({ '.claude/agents/error-auditor.md': errorAuditor });
    const agent = plugin.catalog().get('error-auditor');
    expect(agent).toMatchObject({
      name: 'error-auditor',
      tools: ['Read', 'Grep', 'Glob'],
      model: 'inherit',
      prompt: 'You audit error handling. Report each place where a failure is hidden, with file and line.',
      source: 'project',
    });
    expect(agent?.description).toBe(
      [
        'Use this agent when a change adds error handling that could hide failures: empty catch blocks, silent fallbacks, swallowed promise rejections. Examples:',
        '',
        '<example>',
        'Context: The user wrapped an API call in try/catch.',
        'user: "I added error handling to the client, can you check it?"',
        'assistant: "I\'ll have the error-auditor agent look for failures it hides."',
        '</example>',
      ].join('\n'),
    );
    expect(plugin.problems()).toEqual([
      {
        code: SubagentErrorCode.BAD_YAML,
        message: expect.stringContaining('with the value of "description" taken as written'),
        path: expect.stringMatching(/error-auditor\.md$/),
        skipped: false,
      },
    ]);
    // The model is offered the type with its whole description.
    const task = host.tools.schemas().find((s) => s.name === 'task');
    expect(task?.description).toContain('- error-auditor: Use this agent when a change adds error handling that could hide failures:');
    expect(task?.description).toContain('\nContext: The user wrapped an API call in try/catch.\n');
    expect(host.diagnostics.list().map((d) => [d.code, d.source])).toEqual([[SubagentErrorCode.BAD_YAML, 'tool-subagent']]);
  });

  it('still leaves out front matter that quoting cannot repair, with SUBAGENT_BAD_YAML', async () => {
    // Continuation lines that are not indented: Claude Code cannot read these either.
    const { plugin } = await load({
      '.claude/agents/helper.md':
        '---\nname: helper\ndescription: Use this agent for refactors. Examples:\n<example>\nContext: a large change\nuser: "Split this file"\n</example>\n---\nYou refactor.\n',
    });
    expect(plugin.catalog().get('helper')).toBeUndefined();
    expect(plugin.problems().map((p) => [p.code, p.skipped])).toEqual([[SubagentErrorCode.BAD_YAML, true]]);
  });

  it('reports only why a repaired definition is still left out', async () => {
    const { plugin } = await load({ '.claude/agents/odd.md': '---\nname: [odd\ndescription: Checks: things\n---\nPrompt.\n' });
    expect(plugin.catalog().get('[odd')).toBeUndefined();
    expect(plugin.problems().map((p) => [p.code, p.skipped])).toEqual([[SubagentErrorCode.INVALID_NAME, true]]);
  });
});

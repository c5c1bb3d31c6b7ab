import { describe, expect, it } from 'vitest';
import { fsHost, scratch } from './fixtures/workspace.js';

describe('external names', () => {
  it('finds each tool by its name in Claude Code, Gemini CLI and Copilot CLI', async () => {
    const s = await scratch();
    try {
      const t = await fsHost(s.ws);
      const found = (dialect: string, name: string) => t.host.tools.findExternal(dialect, name)?.name;
      expect(['Read', 'Write', 'Edit', 'MultiEdit', 'LS', 'Glob', 'Grep'].map((n) => found('claude', n))).toEqual([
        'read',
        'write',
        'edit',
        'multi_edit',
        'list',
        'glob',
        'grep',
      ]);
      expect(['read_file', 'write_file', 'replace', 'list_directory', 'glob', 'grep'].map((n) => found('gemini', n))).toEqual([
        'read',
        'write',
        'edit',
        'list',
        'glob',
        'grep',
      ]);
      expect(['view', 'create', 'edit', 'glob', 'grep'].map((n) => found('copilot', n))).toEqual(['read', 'write', 'edit', 'glob', 'grep']);
    } finally {
      await s.cleanup();
    }
  });

  it('maps arguments both ways', async () => {
    const s = await scratch();
    try {
      const t = await fsHost(s.ws);
      const ext = (tool: string, dialect: string) => {
        const mapping = t.host.tools.get(tool)?.external?.[dialect];
        if (mapping === undefined) throw new Error(`no ${dialect} mapping for ${tool}`);
        return mapping;
      };
      expect(ext('read', 'claude').toExternal({ file_path: '/w/a', offset: 3 })).toEqual({ file_path: '/w/a', offset: 3 });
      expect(ext('read', 'gemini').toExternal({ file_path: '/w/a', offset: 3, limit: 2 })).toEqual({
        file_path: '/w/a',
        offset: 2,
        limit: 2,
      });
      expect(ext('read', 'gemini').fromExternal({ absolute_path: '/w/a', offset: 0 })).toEqual({ file_path: '/w/a', offset: 1 });
      expect(ext('read', 'copilot').fromExternal({ path: '/w/a', view_range: [5, 9] })).toEqual({ file_path: '/w/a', offset: 5, limit: 5 });
      expect(ext('write', 'copilot').toExternal({ file_path: '/w/a', content: 'x' })).toEqual({ path: '/w/a', file_text: 'x' });
      expect(ext('edit', 'copilot').fromExternal({ path: '/w/a', old_str: 'a', new_str: 'b' })).toEqual({
        file_path: '/w/a',
        old_string: 'a',
        new_string: 'b',
      });
      expect(ext('edit', 'gemini').fromExternal({ file_path: '/w/a', old_string: 'a', new_string: 'b', expected_replacements: 3 })).toEqual(
        {
          file_path: '/w/a',
          old_string: 'a',
          new_string: 'b',
          replace_all: true,
        },
      );
      expect(ext('grep', 'claude').fromExternal({ pattern: 'x', '-i': true, '-C': 2, head_limit: 5, output_mode: 'content' })).toEqual({
        pattern: 'x',
        case_insensitive: true,
        context: 2,
        max_results: 5,
        output_mode: 'content',
      });
      const roundTrip = ext('grep', 'claude').fromExternal(ext('grep', 'claude').toExternal({ pattern: 'x', glob: '*.ts', after: 1 }));
      expect(roundTrip).toEqual({ pattern: 'x', glob: '*.ts', after: 1 });
    } finally {
      await s.cleanup();
    }
  });
});

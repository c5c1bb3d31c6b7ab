import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from './front-matter.js';

describe('parseFrontMatter', () => {
  it('splits the YAML block from the Markdown after it, past a byte-order mark', () => {
    expect(parseFrontMatter('\uFEFF---\nname: review\ntools: Read, Grep\n---\nBe thorough.\n')).toEqual({
      ok: true,
      data: { name: 'review', tools: 'Read, Grep' },
      body: 'Be thorough.\n',
    });
    expect(parseFrontMatter('---\n---\nbody')).toEqual({ ok: true, data: {}, body: 'body' });
  });

  it.each([
    ['no block', '# Title\n', 'missing'],
    ['a block that never ends', '---\nname: x\n', 'missing'],
    ['broken YAML', '---\nname: [x\n---\n', 'yaml'],
    ['a duplicate key', '---\nname: a\nname: b\n---\n', 'yaml'],
    [
      'an alias bomb',
      `---\na: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from(
        { length: 8 },
        (_, i) =>
          `${'b'.repeat(i + 1)}: &${'b'.repeat(i + 1)} [${Array(10)
            .fill(i === 0 ? '*a' : `*${'b'.repeat(i)}`)
            .join(', ')}]`,
      ).join('\n')}\n---\n`,
      'yaml',
    ],
    ['a list instead of fields', '---\n- a\n- b\n---\n', 'not-a-map'],
  ])('refuses %s with a reason', (_name, text, kind) => {
    expect(parseFrontMatter(text)).toMatchObject({ ok: false, kind, message: expect.any(String) });
  });
});

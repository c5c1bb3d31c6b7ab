import { applyPatch, createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from './internal/diff.js';

// A small deterministic generator, so a failure names a reproducible case.
function generator(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

describe('unifiedDiff', () => {
  it('equals createTwoFilesPatch for one change in a large file, with the right line numbers', () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `line ${i + 1}`);
    const before = `${lines.join('\n')}\n`;
    const after = before.replace('line 5000\n', 'changed\n');
    expect(unifiedDiff('f', before, after)).toBe(createTwoFilesPatch('f', 'f', before, after, '', '', { context: 3 }));
    expect(unifiedDiff('f', before, after)).toContain('@@ -4997,7 +4997,7 @@');
  });

  it('keeps the missing final newline marker, and handles changes at either end', () => {
    for (const [before, after] of [
      ['a\nb\nc', 'a\nb\nc\n'],
      ['a\nb\nc\n', 'x\nb\nc\n'],
      ['', 'new\n'],
      ['old\n', ''],
    ] as const) {
      expect(unifiedDiff('f', before, after)).toBe(createTwoFilesPatch('f', 'f', before, after, '', '', { context: 3 }));
    }
  });

  it('gives a patch that turns before into after, for thousands of random edits', () => {
    const random = generator(42);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    for (let n = 0; n < 3000; n += 1) {
      const lines = Array.from({ length: Math.floor(random() * 30) }, () => pick(['a', 'b', 'c', '', 'x y']));
      const before = lines.join('\n') + (random() < 0.5 ? '\n' : '');
      const changed = before.split('\n');
      for (let k = 0; k < 1 + Math.floor(random() * 3); k += 1) {
        const at = Math.floor(random() * (changed.length + 1));
        const op = random();
        if (op < 0.33) changed.splice(at, 1);
        else if (op < 0.66) changed.splice(at, 0, pick(['q', 'a', 'z']));
        else changed[at] = pick(['q', 'b', '']);
      }
      const after = changed.join('\n');
      expect(applyPatch(before, unifiedDiff('f', before, after)), JSON.stringify([before, after])).toBe(after);
    }
  });
});

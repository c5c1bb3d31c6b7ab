import type { Outcome } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import { styleFor } from './style.js';
import { TerminalUi } from './terminal-ui.js';
import { visibleWidth, wrapLine, wrapText } from './wrap.js';

/** A terminal UI `columns` wide writing into a string, plain style, no spinner. */
function screen(columns: number): { ui: TerminalUi; text: () => string } {
  let text = '';
  const ui = new TerminalUi({ write: (chunk) => (text += chunk) }, styleFor(false), { spinner: false, width: () => columns });
  return { ui, text: () => text };
}

const call = { id: 'call_write', name: 'write', token: 't' };
const denied: Outcome = {
  status: 'denied',
  stage: 'execute',
  by: 'tool-fs/read-before-edit',
  code: 'FS_NOT_READ',
  reason: 'src/components/settings-panel.tsx was changed since it was last read: read it again before writing it',
};

function cards(columns: number): string {
  const { ui, text } = screen(columns);
  ui.pending(call, { title: 'Write src/components/settings-panel.tsx', summary: '12 lines, 348 bytes' });
  ui.progress(call, {
    type: 'output',
    stream: 'stdout',
    text: 'building the settings panel from its template, with every default filled in\n',
  });
  ui.completed(call, { title: 'Write src/components/settings-panel.tsx' }, denied);
  return text();
}

describe('cards wrap at word boundaries to the terminal width', () => {
  it('at 80 columns', () => {
    expect(cards(80)).toBe(
      [
        '● Write src/components/settings-panel.tsx [call_write] 12 lines, 348 bytes',
        '    │ building the settings panel from its template, with every default filled',
        '    │ in',
        '✘ Write src/components/settings-panel.tsx [call_write] denied FS_NOT_READ',
        '  (execute: tool-fs/read-before-edit)',
        '    src/components/settings-panel.tsx was changed since it was last read: read',
        '    it again before writing it',
        '',
      ].join('\n'),
    );
  });

  it('at 40 columns, cutting only a word wider than the line', () => {
    expect(cards(40)).toBe(
      [
        '● Write',
        '  src/components/settings-panel.tsx',
        '  [call_write] 12 lines, 348 bytes',
        '    │ building the settings panel from',
        '    │ its template, with every default',
        '    │ filled in',
        '✘ Write',
        '  src/components/settings-panel.tsx',
        '  [call_write] denied FS_NOT_READ',
        '  (execute: tool-fs/read-before-edit)',
        '    src/components/settings-panel.tsx',
        '    was changed since it was last read:',
        '    read it again before writing it',
        '',
      ].join('\n'),
    );
    expect(wrapLine(`    ${'x'.repeat(50)} end`, 40)).toEqual([`    ${'x'.repeat(36)}`, `    ${'x'.repeat(14)} end`]);
  });

  it('never splits a word that fits, and keeps every line within the width', () => {
    const text = 'the quick brown fox jumps over the lazy dog '.repeat(20);
    for (const width of [40, 80]) {
      const lines = wrapText(text, width).split('\n');
      for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
      expect(lines.join(' ').split(/ +/).filter(Boolean)).toEqual(text.split(' ').filter(Boolean));
    }
  });

  it('carries colours over the break and counts escapes and wide characters right', () => {
    const dim = (t: string) => `\u001b[2m${t}\u001b[22m`;
    expect(wrapText(dim('    │ alpha beta gamma delta'), 20)).toBe(
      '\u001b[2m    │ alpha beta\u001b[0m\n\u001b[2m    │ gamma delta\u001b[22m',
    );
    expect(visibleWidth('\u001b[31m日本\u001b[39m ok')).toBe(7);
    expect(wrapLine('日本語のテキスト 日本語のテキスト', 20)).toEqual(['日本語のテキスト', '日本語のテキスト']);
  });

  it('leaves a line it is told not to wrap whole (a URL to copy)', () => {
    const { ui, text } = screen(40);
    const url = `    https://auth.example.com/authorize?client_id=${'a'.repeat(60)}`;
    ui.line(url, { wrap: false });
    expect(text()).toBe(`${url}\n`);
  });
});

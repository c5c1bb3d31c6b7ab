import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { PermissionPromptRequest } from '@deepseek-ai/dsh-permissions';
import { afterEach, describe, expect, it } from 'vitest';
// The agent package's fake Chat Completions server: real HTTP on 127.0.0.1, checking every request it gets.
import type { FakeServer } from '../../../agent/dist/testing/fake-http.js';
import { startOpenAIChatServer } from '../../../agent/dist/testing/openai-chat-server.js';
import { dshInTerminal, terminalTestsRun, warnWithoutTmux } from '../fixtures/dsh-terminal.js';
import { put, scratchDir } from '../fixtures/run-dsh.js';
import { styleFor } from '../render/style.js';
import { TerminalUi } from '../render/terminal-ui.js';
import { visibleWidth } from '../render/wrap.js';
import { terminalPrompt } from './terminal-prompt.js';

warnWithoutTmux('terminal-prompt.test.ts');

const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** The scripted model: writes a file (which needs approval), then answers. */
async function model(): Promise<FakeServer> {
  const server = await startOpenAIChatServer([
    {
      text: 'Writing the notes.',
      calls: [{ id: 'call_write', name: 'write', args: JSON.stringify({ file_path: 'notes/todo.txt', content: 'buy milk' }) }],
    },
    { text: 'Done.' },
  ]);
  servers.push(server);
  return server;
}

/** `dsh run` in a real terminal `columns` wide, in a fresh project. */
function terminal(columns: number, server: FakeServer) {
  const root = scratchDir();
  const home = scratchDir();
  put(root, 'README.md', '# A project\n');
  const args = ['run', 'note it', '--base-url', server.url, '--log', join(home, 'session.jsonl')];
  return { root, ...dshInTerminal({ root, home, args, env: { DEEPSEEK_API_KEY: 'test-key' }, columns }) };
}

describe('the approval question in a terminal', () => {
  it.runIf(terminalTestsRun)(
    'names the file, ignores keys it does not offer, says no on Enter, echoes it once, and wraps to 60 columns',
    async () => {
      const server = await model();
      const t = terminal(60, server);
      try {
        await t.waitFor(/\[n\] no\n +>/);
        // Read as one text (dsh's own line breaks undone): the question names the file.
        expect(t.screen({ joined: false }).replace(/\n +/g, ' ')).toContain(
          '? the agent wants to run Write notes/todo.txt (1 line, 8 bytes)',
        );
        t.keys('x');
        t.keys('Enter');
        expect(await t.exitCode()).toBe('0');
        // The rows as the terminal shows them: a line dsh did not wrap would show as two rows.
        const screen = t.screen({ joined: false });
        expect(screen).toMatch(/\n {2}> no\n✘ Write notes\/todo\.txt \[call_write\] denied APPROVAL_REJECTED/);
        expect(screen.split('wants to run').length - 1).toBe(1);
        // The answers did not fit on one line: one a line, never cut in two.
        expect(screen).toMatch(/\n {4}\[y\] yes, once\n {4}\[s\] yes, for this session:/);
        // dsh wrapped the cards and the question itself: no line reached the terminal's edge and broke there
        // (joining the terminal's own wraps, -J, changes nothing), and no row is wider than the terminal.
        const part = (text: string) => text.slice(text.indexOf('● Write'), text.indexOf('Done.'));
        expect(part(t.screen())).toBe(part(screen));
        for (const row of part(screen).split('\n')) expect(visibleWidth(row)).toBeLessThanOrEqual(60);
      } finally {
        t.close();
      }
      expect(existsSync(join(t.root, 'notes/todo.txt'))).toBe(false);
    },
  );

  it.runIf(terminalTestsRun)('takes Ctrl-C at the question as no, and stops the run', async () => {
    const server = await model();
    const t = terminal(200, server);
    try {
      await t.waitFor(/\[n\] no\n +>/);
      t.keys('C-c');
      expect(await t.exitCode()).toBe('5');
      const screen = t.screen();
      expect(screen).toMatch(/\n {2}> cancelled \(Ctrl-C\)\nStopping: every started call gets its result/);
      expect(screen).toContain('✘ stopped');
    } finally {
      t.close();
    }
    expect(existsSync(join(t.root, 'notes/todo.txt'))).toBe(false);
  });
});

describe('the approval question without a TTY (a line is read)', () => {
  function ask(lines: string, offered: readonly ('session' | 'project')[]) {
    let text = '';
    const ui = new TerminalUi({ write: (chunk) => (text += chunk) }, styleFor(false), { spinner: false });
    const input = new PassThrough();
    const prompt = terminalPrompt({ input, ui, style: styleFor(false), onInterrupt: () => undefined });
    const request = {
      call: { id: 'c1', name: 'bash', token: 't' },
      tool: { name: 'bash', description: '' },
      args: { command: 'npm test' },
      signal: new AbortController().signal,
      decision: undefined,
      remember: { scopes: offered, suggestions: [{ label: 'exactly this command', rules: ['Bash(npm test)'] }] },
    } satisfies PermissionPromptRequest;
    const reply = Promise.resolve(prompt(request));
    input.write(lines);
    return reply.then((answer) => ({ answer, text }));
  }

  it('reads y, s, a and n as words, and an empty line as the default no', async () => {
    expect((await ask('y\n', ['session'])).answer).toBe('allowed-once');
    expect((await ask('s\n', ['session', 'project'])).answer).toEqual({ answer: 'allowed-session', rules: ['Bash(npm test)'] });
    expect((await ask('always\n', ['session', 'project'])).answer).toEqual({ answer: 'allowed-project', rules: ['Bash(npm test)'] });
    const no = await ask('\n', ['session']);
    expect(no.answer).toMatchObject({ answer: 'rejected' });
    expect(no.text).toBe(
      [
        '  ? the agent wants to run bash: npm test',
        '    [y] yes, once   [s] yes, for this session: Bash(npm test)   Enter or [n] no',
        '  > no',
        '',
      ].join('\n'),
    );
    // Remembering for the project is not offered, so `a` is not an answer: the default.
    expect((await ask('a\n', ['session'])).answer).toMatchObject({ answer: 'rejected' });
  });
});

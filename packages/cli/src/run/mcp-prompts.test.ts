import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { styleFor } from '../render/style.js';
import { TerminalUi } from '../render/terminal-ui.js';
import { terminalAuthorization } from './mcp-prompts.js';

/** Asks the authorization question with `typed` as the input (a stream that is not a TTY: a line is read). */
async function authorize(typed: string, signal = new AbortController().signal) {
  let text = '';
  const ui = new TerminalUi({ write: (chunk) => (text += chunk) }, styleFor(false), { spinner: false });
  const input = new PassThrough();
  const handler = terminalAuthorization({ input, output: new PassThrough(), ui, style: styleFor(false) });
  const answer = Promise.resolve(handler({ server: 'docs', url: 'https://auth.example/authorize?x=1', signal }));
  input.write(typed);
  return { answer: await answer, text };
}

describe('the MCP authorization question', () => {
  it('declines with - or n at once, and goes on to wait for the browser on an empty line', async () => {
    expect((await authorize('-\n')).answer).toBe(false);
    expect((await authorize('n\n')).answer).toBe(false);
    const wait = await authorize('\n');
    expect(wait.answer).toBeUndefined();
    expect(wait.text).toBe(
      [
        '  ? MCP server docs needs authorization. Open this URL in a browser:',
        '    https://auth.example/authorize?x=1',
        '    Enter: continue in the browser (dsh waits for it)   [n] or [-] decline',
        '  > waiting for the browser',
        '',
      ].join('\n'),
    );
  });

  it('is withdrawn when dsh stops waiting, and declines when the input closes', async () => {
    const stop = new AbortController();
    let text = '';
    const ui = new TerminalUi({ write: (chunk) => (text += chunk) }, styleFor(false), { spinner: false });
    const input = new PassThrough();
    const handler = terminalAuthorization({ input, output: new PassThrough(), ui, style: styleFor(false) });
    const answer = Promise.resolve(handler({ server: 'docs', url: 'https://auth.example/a', signal: stop.signal }));
    stop.abort();
    expect(await answer).toBeUndefined();
    expect(text).toContain('  > withdrawn\n');
    const closed = new PassThrough();
    const again = terminalAuthorization({ input: closed, output: new PassThrough(), ui, style: styleFor(false) });
    const declined = Promise.resolve(again({ server: 'docs', url: 'https://auth.example/a', signal: new AbortController().signal }));
    closed.end();
    expect(await declined).toBe(false);
  });
});

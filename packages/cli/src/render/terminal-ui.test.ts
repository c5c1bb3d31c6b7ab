import type { Outcome } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import { styleFor } from './style.js';
import { TerminalUi } from './terminal-ui.js';

const call = { id: 'ticks', name: 'bash', token: 't' };
const ok: Outcome = { status: 'ok', stage: 'execute', output: { exitCode: 0, signal: null } };

/** A terminal UI writing into a string, with plain style and no spinner. */
function screen(): { ui: TerminalUi; text: () => string } {
  let text = '';
  const ui = new TerminalUi({ write: (chunk) => (text += chunk) }, styleFor(false), { spinner: false });
  return { ui, text: () => text };
}

describe('the terminal UI', () => {
  it('prints live output once: the completed card of a call that streamed it leaves its output out', () => {
    const { ui, text } = screen();
    ui.pending(call, { title: 'bash', body: 'for i in 1 2 3; do echo tick $i; done' });
    ui.progress(call, { type: 'output', stream: 'stdout', text: 'tick 1\ntick 2\n' });
    ui.progress(call, { type: 'output', stream: 'stdout', text: 'tick 3' });
    ui.completed(call, { title: 'bash', summary: 'exit 0', body: 'tick 1\ntick 2\ntick 3' }, ok);
    const out = text();
    for (const tick of ['tick 1', 'tick 2', 'tick 3']) expect(out.split(tick).length - 1).toBe(1);
    expect(out).toMatch(/ {4}│ tick 3\n✔ bash \[ticks\] ok \(execute\) exit 0\n$/);
  });

  it('still prints the output of a call that streamed nothing', () => {
    const { ui, text } = screen();
    ui.pending(call, { title: 'bash' });
    ui.completed(call, { title: 'bash', summary: 'exit 0', body: 'quiet result' }, ok);
    expect(text()).toContain('✔ bash [ticks] ok (execute) exit 0\n    quiet result\n');
  });

  it('gives a call one title: the completed card keeps the pending card’s', () => {
    const { ui, text } = screen();
    const mcp = { id: 'mcp-list', name: 'mcp__notes__list_notes', token: 't' };
    ui.pending(mcp, { title: 'notes: list_notes', summary: 'MCP tool list_notes' });
    ui.completed(mcp, { title: 'mcp__notes__list_notes', summary: 'done' }, { status: 'ok', stage: 'execute', output: {} });
    expect(text()).toBe('● notes: list_notes [mcp-list] MCP tool list_notes\n✔ notes: list_notes [mcp-list] ok (execute) done\n');
  });

  it('keeps other output back while a question is open, and prints it in order once it is answered', () => {
    const { ui, text } = screen();
    const screenOfQuestion = ui.hold();
    screenOfQuestion.line('  ? the agent wants to run bash: rm -rf dist');
    ui.pending(call, { title: 'bash', summary: 'npm test' });
    ui.progress(call, { type: 'output', stream: 'stdout', text: 'tick 1\n' });
    screenOfQuestion.write('  > ');
    screenOfQuestion.write('yes, once\n');
    expect(text()).toBe('  ? the agent wants to run bash: rm -rf dist\n  > yes, once\n');
    screenOfQuestion.release();
    expect(text()).toBe('  ? the agent wants to run bash: rm -rf dist\n  > yes, once\n● bash [ticks] npm test\n    │ tick 1\n');
  });
});

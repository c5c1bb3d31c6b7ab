import type { JsonValue, Outcome } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import { failureOfOk, relativeTo, renderCompleted, renderPending } from './cards.js';
import { styleFor } from './style.js';

const plain = styleFor(false);
const id = { id: 'c1', name: 'bash', token: 't' };
const ok = (output: JsonValue): Outcome => ({ status: 'ok', stage: 'execute', output });

describe('cards', () => {
  it('draws an ok command that exited non-zero, or was killed, as a failure; exit 0 as a success', () => {
    expect(renderCompleted(plain, id, { title: 'bash', summary: 'exit 1' }, ok({ exitCode: 1, signal: null }))).toBe(
      '✘ bash [c1] exit 1 (execute)',
    );
    expect(failureOfOk(ok({ exitCode: null, signal: 'SIGKILL' }))).toBe('killed by SIGKILL');
    expect(renderCompleted(plain, id, { title: 'bash', summary: 'exit 0' }, ok({ exitCode: 0, signal: null }))).toBe(
      '✔ bash [c1] ok (execute) exit 0',
    );
    expect(failureOfOk(ok('text'))).toBeUndefined();
  });

  it('shows a program’s text on its pending card, not a one-line command', () => {
    const program = { title: 'Run code', summary: '2 lines', body: '\nconst a = 1;\nreturn a;\n', format: 'code' as const };
    expect(renderPending(plain, id, program)).toBe('● Run code [c1] 2 lines\n    const a = 1;\n    return a;');
    expect(renderPending(plain, id, { title: 'bash', summary: 'ls', body: 'ls', format: 'code' })).toBe('● bash [c1] ls');
    expect(renderCompleted(plain, id, program, ok({}), { omitBody: true })).toBe('✔ Run code [c1] ok (execute) 2 lines');
  });

  it('says how many lines a long body left out, in the singular for one', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');
    expect(
      renderCompleted(plain, id, { title: 'bash', body: body(41) }, ok({}))
        .split('\n')
        .at(-1),
    ).toBe('    … 1 more line');
    expect(
      renderCompleted(plain, id, { title: 'bash', body: body(42) }, ok({}))
        .split('\n')
        .at(-1),
    ).toBe('    … 2 more lines');
  });

  it('shows paths under the workspace relative to it, and no others', () => {
    expect(relativeTo('/w/ws', 'Read /w/ws/src/a.js; /w/ws2/b; /w/ws')).toBe('Read src/a.js; /w/ws2/b; /w/ws');
    expect(relativeTo(undefined, '/w/ws/a')).toBe('/w/ws/a');
  });
});

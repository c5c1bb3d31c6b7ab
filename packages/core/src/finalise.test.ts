import { describe, expect, it } from 'vitest';
import { outputTool } from './__fixtures__/tools.js';
import { DshError, defineTool, type Outcome, z } from './index.js';
import { createTestHost } from './testing/index.js';

async function setup(outputs: Record<string, () => unknown>) {
  const t = await createTestHost();
  t.host.tools.register(outputTool(outputs));
  return t;
}

describe('finalisation (stage 11)', () => {
  it.each([
    [
      'a cyclic object',
      () => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      },
      '$.self',
      'cycle',
    ],
    ['a function', () => ({ fn: () => 1 }), '$.fn', 'function'],
    ['NaN', () => ({ n: Number.NaN }), '$.n', 'NaN'],
    ['undefined in an array', () => [1, undefined], '$[1]', 'undefined'],
  ])('fails %s with INVALID_TOOL_OUTPUT naming where', async (_label, make, path, word) => {
    const t = await setup({ v: make });
    const outcome = await t.call('output', { key: 'v' });
    expect(outcome).toMatchObject({ status: 'error', stage: 'finalise', error: { code: 'INVALID_TOOL_OUTPUT' } });
    expect(outcome.status === 'error' && outcome.error.message).toContain(path);
    expect(outcome.status === 'error' && outcome.error.message).toContain(word);
  });

  it('keeps a bigint exact and freezes the outcome deeply', async () => {
    const t = await setup({ v: () => ({ list: [{ n: 2n ** 64n }] }) });
    const outcome = await t.call('output', { key: 'v' });
    expect(outcome).toMatchObject({ status: 'ok', output: { list: [{ n: 18446744073709551616n }] } });
    expect(Object.isFrozen(outcome)).toBe(true);
    const output = (outcome as Extract<Outcome, { status: 'ok' }>).output as { list: object[] };
    expect(Object.isFrozen(output.list[0])).toBe(true);
  });

  it('drops error data that is not JSON but keeps the error, and records why', async () => {
    const t = await createTestHost();
    t.host.tools.register(
      defineTool({
        name: 'bad-data',
        description: 'Throws with odd data.',
        input: z.object({}),
        execute: () => {
          throw new DshError('ODD', 'odd failure', { data: { when: new Date(0) } });
        },
      }),
    );
    const outcome = await t.call('bad-data', {});
    expect(outcome).toEqual({ status: 'error', stage: 'execute', error: { code: 'ODD', message: 'odd failure' } });
    expect(t.host.diagnostics.list()[0]?.code).toBe('ERROR_DATA_DROPPED');
  });
});

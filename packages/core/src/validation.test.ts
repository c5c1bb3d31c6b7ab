import { describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import { defineTool, exactInteger, z } from './index.js';
import { createTestHost, logProblems } from './testing/index.js';

async function hostWithEcho() {
  const runs: string[] = [];
  const t = await createTestHost();
  t.host.tools.register(echoTool(runs));
  return { t, runs };
}

describe('argument validation (stage 3)', () => {
  it('gives an unknown tool UNKNOWN_TOOL, naming the tools there are, and runs nothing', async () => {
    const { t, runs } = await hostWithEcho();
    const outcome = await t.call('ehco', { text: 'x' });
    expect(outcome).toMatchObject({ status: 'error', stage: 'validate', error: { code: 'UNKNOWN_TOOL' } });
    expect(outcome.status === 'error' && outcome.error.message).toContain('echo');
    expect(runs).toEqual([]);
  });

  it('names the failing field when arguments fail the schema', async () => {
    const { t, runs } = await hostWithEcho();
    const outcome = await t.call('echo', { text: 7 });
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS' } });
    expect(outcome.status === 'error' && outcome.error.message).toMatch(/text: /);
    expect(runs).toEqual([]);
  });

  it('refuses arguments that are not JSON, or not an object', async () => {
    const { t, runs } = await hostWithEcho();
    const notJson = await t.call('echo', '{"text": "unterminated');
    expect(notJson).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS' } });
    expect(notJson.status === 'error' && notJson.error.message).toContain('not JSON');
    const array = await t.call('echo', '[1,2]');
    expect(array.status === 'error' && array.error.message).toContain('JSON object');
    expect(runs).toEqual([]);
    expect(logProblems(t.host.events.list())).toEqual([]);
  });

  it('accepts the JSON text the model sent', async () => {
    const { t, runs } = await hostWithEcho();
    const outcome = await t.call('echo', '{"text":"hi"}', 'c1');
    expect(outcome).toMatchObject({ status: 'ok', output: { text: 'hi' } });
    expect(runs).toEqual(['c1:hi']);
  });

  it('delivers an integer above 2^53 to the tool exactly, and keeps it exact in the result', async () => {
    const t = await createTestHost();
    let seen: unknown;
    t.host.tools.register(
      defineTool({
        name: 'id',
        description: 'Returns the id.',
        input: z.object({ id: exactInteger() }),
        execute: (args) => {
          seen = args.id;
          return { id: args.id };
        },
      }),
    );
    const outcome = await t.call('id', '{"id": 9007199254740993}');
    expect(seen).toBe(9007199254740993n);
    expect(outcome).toMatchObject({ status: 'ok', output: { id: 9007199254740993n } });
    expect(t.host.tools.schemas()[0]?.inputSchema).toMatchObject({
      properties: { id: { anyOf: [{ type: 'integer' }, { type: 'integer' }] } },
    });
  });

  it('freezes the arguments the body gets, so no stage after approval can change them', async () => {
    const t = await createTestHost();
    let frozen = false;
    t.host.tools.register(
      defineTool({
        name: 'peek',
        description: 'Checks its args.',
        input: z.object({ nested: z.object({ a: z.number() }) }),
        execute: (args) => {
          frozen = Object.isFrozen(args) && Object.isFrozen(args.nested);
          return null;
        },
      }),
    );
    await t.call('peek', { nested: { a: 1 } });
    expect(frozen).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { defineTool, z } from './index.js';
import { createTestHost } from './testing/index.js';

/** An echo tool whose schema counts how often it validates arguments. */
async function countingHost() {
  const validations = { count: 0 };
  const t = await createTestHost();
  t.host.tools.register(
    defineTool({
      name: 'echo',
      description: 'Returns its text.',
      input: z.object({ text: z.string() }).refine(() => {
        validations.count += 1;
        return true;
      }),
      execute: (args) => args.text,
    }),
  );
  return { t, validations };
}

describe('a pre-execute tap that hands back what it was given (issue 15 item 9)', () => {
  it('is no rewrite when it returns the very state it got: validated once, no original/effective args recorded', async () => {
    const { t, validations } = await countingHost();
    t.host.hooks.preExecute.tap('tapable-style', (state) => state);
    expect(await t.call('echo', { text: 'hi' })).toMatchObject({ status: 'ok', output: 'hi' });
    expect(validations.count).toBe(1);
    const result = t.host.events.list().find((e) => e.type === 'tool/result');
    expect(result?.data).not.toHaveProperty('originalArgs');
    expect(result?.data).not.toHaveProperty('args');
  });

  it('is no rewrite when it returns the same args object in a new update', async () => {
    const { t, validations } = await countingHost();
    t.host.hooks.preExecute.tap('same-args', (state) => ({ args: state.args, decision: 'allow' }));
    expect(await t.call('echo', { text: 'hi' })).toMatchObject({ status: 'ok', output: 'hi' });
    expect(validations.count).toBe(1);
    const result = t.host.events.list().find((e) => e.type === 'tool/result');
    expect(result?.data).not.toHaveProperty('originalArgs');
  });

  it('keeps who decided when a tap returns the state unchanged', async () => {
    const { t } = await countingHost();
    const seen: (string | undefined)[] = [];
    t.host.hooks.preExecute.tap('decider', () => ({ decision: 'allow', reason: 'fine' }));
    t.host.hooks.preExecute.tap('passer', (state) => state);
    t.host.hooks.preExecute.tap('reader', (state) => {
      seen.push(state.decidedBy);
    });
    await t.call('echo', { text: 'hi' });
    expect(seen).toEqual(['decider']);
  });

  it('still counts an equal but new args object as a rewrite, validated again and recorded', async () => {
    const { t, validations } = await countingHost();
    t.host.hooks.preExecute.tap('copier', (state) => ({ args: { ...state.args } }));
    expect(await t.call('echo', { text: 'hi' })).toMatchObject({ status: 'ok' });
    expect(validations.count).toBe(2);
    const result = t.host.events.list().find((e) => e.type === 'tool/result');
    expect(result?.data).toMatchObject({ args: { text: 'hi' }, originalArgs: { text: 'hi' } });
  });
});

import { describe, expect, it } from 'vitest';
import { echoTool, failTool } from './__fixtures__/tools.js';
import { createTestHost } from './testing/index.js';

async function setup(defaultDecision: 'allow' | 'deny' = 'allow') {
  const t = await createTestHost({ defaultDecision, tapTimeoutMs: 50 });
  t.host.tools.register(echoTool());
  t.host.tools.register(failTool());
  return t;
}

describe('the tools/post-execute waterfall (stage 10)', () => {
  it('blocks an output: the model reads the reason instead', async () => {
    const t = await setup();
    t.host.hooks.postExecute.tap('redactor', () => ({ block: 'output withheld: it contained a token' }));
    expect(await t.call('echo', { text: 'x' })).toMatchObject({
      status: 'blocked',
      stage: 'post-execute',
      by: 'redactor',
      code: 'POST_EXECUTE_BLOCKED',
      reason: 'output withheld: it contained a token',
    });
  });

  it('keeps a block final: a later tap cannot replace the output, only add context', async () => {
    const t = await setup();
    t.host.hooks.postExecute.tap('blocker', () => ({ block: 'no' }));
    t.host.hooks.postExecute.tap('replacer', () => ({ replaceOutput: 'sneaky', addContext: 'note' }));
    const { results, context } = await t.host.runStep({ calls: [{ id: 'a', name: 'echo', args: { text: 'x' } }] });
    expect(results[0]?.outcome).toMatchObject({ status: 'blocked', by: 'blocker' });
    expect(context?.text).toBe('note');
  });

  it('replaces the output of an ok or error outcome, even with a falsy value', async () => {
    const t = await setup();
    t.host.hooks.postExecute.tap('zero', () => ({ replaceOutput: 0 }));
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'ok', stage: 'post-execute', by: 'zero', output: 0 });
    expect(await t.call('fail', { how: 'error' })).toMatchObject({ status: 'ok', output: 0 });
  });

  it('keeps a denial a denial: a tap may only add context to it', async () => {
    const t = await setup('deny');
    const seen: string[] = [];
    t.host.hooks.postExecute.tap('rewriter', (state) => {
      seen.push(state.outcome.status);
      return { replaceOutput: 'allowed after all', block: 'x', addContext: 'the call was denied' };
    });
    const { results, context } = await t.host.runStep({ calls: [{ id: 'a', name: 'echo', args: { text: 'x' } }] });
    expect(seen).toEqual(['denied']);
    expect(results[0]?.outcome).toMatchObject({ status: 'denied', code: 'PRE_EXECUTE_DENIED' });
    expect(context?.parts).toEqual([{ call: 'a', by: 'rewriter', text: 'the call was denied' }]);
  });

  it('does not let a tap replace a validation error with an output', async () => {
    const t = await setup();
    t.host.hooks.postExecute.tap('replacer', () => ({ replaceOutput: 'fine' }));
    expect(await t.call('nope', {})).toMatchObject({ status: 'error', error: { code: 'UNKNOWN_TOOL' } });
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('tap bug');
      },
      'tap bug',
    ],
    ['never settles', () => new Promise<undefined>(() => undefined), 'did not answer within 50 ms'],
    ['returns a non-object', () => 7 as never, 'verdict'],
  ])('turns the outcome into POST_EXECUTE_FAILED when a tap %s', async (_label, fn, message) => {
    const t = await setup();
    t.host.hooks.postExecute.tap('bad', fn as unknown as () => undefined);
    const outcome = await t.call('echo', { text: 'x' });
    expect(outcome).toMatchObject({ status: 'error', stage: 'post-execute', by: 'bad', error: { code: 'POST_EXECUTE_FAILED' } });
    expect(outcome.status === 'error' && outcome.error.message).toContain(message);
  });

  it('keeps a denial when a post-execute tap throws, and records the failure', async () => {
    const t = await setup('deny');
    t.host.hooks.postExecute.tap('bad', () => {
      throw new Error('tap bug');
    });
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'denied' });
    expect(t.host.diagnostics.list()).toMatchObject([{ code: 'POST_EXECUTE_FAILED', source: 'tap:tools/post-execute:bad' }]);
  });
});

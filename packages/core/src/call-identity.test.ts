import { describe, expect, it } from 'vitest';
import { type CallIdentity, defineTool, z } from './index.js';
import { createTestHost } from './testing/index.js';

describe('a call identity', () => {
  it('is one frozen object at every stage of a call, so plugins can key per-call state by it', async () => {
    const t = await createTestHost();
    const seen: [string, CallIdentity][] = [];
    t.host.tools.register(
      defineTool({
        name: 'look',
        description: 'Records the call it runs for.',
        input: z.object({}),
        execute: (_args, ctx) => {
          seen.push(['body', ctx.call]);
          return 'ok';
        },
      }),
    );
    t.host.hooks.preExecute.tap('look', (state, info) => {
      seen.push(['pre-execute state', state.call], ['pre-execute info', info.call]);
    });
    t.host.guards.register({
      id: 'look',
      check: (input) => {
        seen.push(['guard', input.call]);
        return 'abstain';
      },
    });
    t.host.hooks.execute.tap('look', (ctx, next) => {
      seen.push(['execute', ctx.call]);
      return next();
    });
    t.host.hooks.postExecute.tap('look', (state) => {
      seen.push(['post-execute', state.call]);
    });
    t.host.hooks.result.tap('look', (_outcome, info) => {
      seen.push(['result', info.call]);
    });
    await t.call('look', {});
    expect(seen.map(([stage]) => stage)).toEqual([
      'pre-execute state',
      'pre-execute info',
      'guard',
      'execute',
      'body',
      'post-execute',
      'result',
    ]);
    const first = seen[0]?.[1];
    expect(Object.isFrozen(first)).toBe(true);
    for (const [stage, call] of seen) expect(call, stage).toBe(first);
  });
});

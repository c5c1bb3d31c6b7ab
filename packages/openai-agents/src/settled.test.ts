import { defineTool, z } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import { agentWith, logOnDisk, setup } from './fixtures/setup.js';

describe('bridge.settled()', () => {
  it('resolves once every call the bridge saw has its tool/result in the log on disk', async () => {
    const s = await setup({ rules: { ask: ['Bash(touch:*)'], allow: ['Read'] } });
    const { agent, runner } = agentWith(s.tools, [
      { calls: [{ id: 'call_touch', name: 'bash', args: { command: 'touch approved.txt' } }] },
      { calls: [{ id: 'call_next', name: 'read', args: { file_path: 'nothing.txt' } }] },
      { text: 'ok' },
    ]);
    const first = await runner.run(agent, 'go');
    const [item] = first.interruptions;
    if (item === undefined) throw new Error('no interruption');
    first.state.reject(item);
    // No settle(): the resumed run hands the rejection to dsh, whose denial is logged on its own time.
    await runner.run(agent, first.state);
    await s.bridge.settled();
    const results = logOnDisk(s.sessionLog).filter((e) => e.type === 'tool/result');
    expect(results.map((e) => e.call).sort()).toEqual(['call_next', 'call_touch']);
  });

  it('waits for a call whose body is still running, and the result is on disk when it resolves', async () => {
    const s = await setup({ rules: { allow: ['held'] } });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    s.host.tools.register(
      defineTool({
        name: 'held',
        description: 'Returns once the test opens the gate.',
        input: z.object({}),
        execute: async () => {
          started();
          await gate;
          return 'done';
        },
      }),
    );
    const { agent, runner } = agentWith(s.bridge.tools(s.host, { names: ['held'] }), [
      { calls: [{ id: 'call_held', name: 'held', args: {} }] },
      { text: 'ok' },
    ]);
    const run = runner.run(agent, 'go');
    await running;
    let resolved = false;
    const settled = s.bridge.settled().then(() => {
      resolved = true;
    });
    // The body cannot finish before the gate opens, so settled() cannot have resolved.
    await new Promise((resolve) => setImmediate(resolve));
    expect(resolved).toBe(false);
    release();
    await settled;
    expect(
      logOnDisk(s.sessionLog)
        .filter((e) => e.type === 'tool/result')
        .map((e) => e.call),
    ).toEqual(['call_held']);
    await run;
  });

  it('resolves at once when the bridge has seen no call', async () => {
    const s = await setup({});
    await expect(s.bridge.settled()).resolves.toBeUndefined();
  });
});

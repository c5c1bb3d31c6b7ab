import { defineTool, z } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import { toolOutputs } from './fixtures/scripted-model.js';
import { agentWith, oneCallAndResultEach, setup } from './fixtures/setup.js';

describe('the order of tool/result events in the session log', () => {
  it("logs a turn's results in the model's order even when the later call finishes first", async () => {
    const s = await setup({ rules: { allow: ['gated'] } });
    let secondDone!: () => void;
    const second = new Promise<void>((resolve) => {
      secondDone = resolve;
    });
    s.host.tools.register(
      defineTool({
        name: 'gated',
        description: 'p1 finishes only after p2 has.',
        input: z.object({ which: z.string() }),
        parallel: true,
        execute: async ({ which }) => {
          // Ordered by events, not by time: p1's body waits until p2's body is done.
          if (which === 'p1') await second;
          else secondDone();
          return which;
        },
      }),
    );
    const { agent, model, runner } = agentWith(s.bridge.tools(s.host, { names: ['gated'] }), [
      {
        calls: [
          { id: 'p1', name: 'gated', args: { which: 'p1' } },
          { id: 'p2', name: 'gated', args: { which: 'p2' } },
        ],
      },
      { text: 'ok' },
    ]);
    const result = await runner.run(agent, 'go');
    expect(result.interruptions).toEqual([]);
    expect(toolOutputs(model.requests[1]).map(([id]) => id)).toEqual(['p1', 'p2']);
    expect(await oneCallAndResultEach(s, model.calls)).toEqual(['p1', 'p2']);
  });
});

import { type AnySessionEvent, z } from '@deepseek-ai/dsh-core';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { generateText, stepCountIs, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { expectOneCallAndResultEach, loggedHost } from './fixtures/logged-host.js';
import { scriptedModel } from './fixtures/scripted-model.js';
import { resultsOf } from './fixtures/workspace.js';
import { AiSdkErrorCode, dshTools } from './index.js';

/** A promise and its resolve function. */
function signal() {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fired, fire };
}

describe('a step with several calls (the SDK starts them with Promise.all)', () => {
  it('lets parallel bodies overlap and still commits their results in the model order', async () => {
    const secondDone = signal();
    const order: string[] = [];
    const host = await loggedHost({ defaultDecision: 'allow' });
    const dsh = dshTools(host, {
      parallelTools: ['probe'],
      tools: {
        probe: tool({
          description: 'waits for another probe when told to',
          inputSchema: z.object({ name: z.string(), waitForSecond: z.boolean() }),
          execute: async ({ name, waitForSecond }) => {
            // The first body can only finish after the second one: they must overlap.
            if (waitForSecond) await secondDone.fired;
            order.push(name);
            if (!waitForSecond) secondDone.fire();
            return { name };
          },
        }),
      },
    });
    const model = scriptedModel([
      {
        calls: [
          { id: 'o1', name: 'probe', input: { name: 'first', waitForSecond: true } },
          { id: 'o2', name: 'probe', input: { name: 'second', waitForSecond: false } },
        ],
      },
      { text: 'ok' },
    ]);
    const result = await generateText({ model, tools: dsh.tools, prompt: 'go', stopWhen: stepCountIs(3) });
    expect(order).toEqual(['second', 'first']);
    expect(resultsOf(host.events.list())).toEqual([
      ['o1', 'ok'],
      ['o2', 'ok'],
    ]);
    expect(result.steps[0]?.toolResults.map((r) => r.toolCallId)).toEqual(['o1', 'o2']);
    await dsh.settled();
    await expectOneCallAndResultEach(host, ['o1', 'o2']);
    expect(logProblems(host.events.list())).toEqual([]);
  });

  it('runs the bodies of tools that are not parallel one at a time, in the model order', async () => {
    const trace: string[] = [];
    const host = await loggedHost({ defaultDecision: 'allow' });
    const dsh = dshTools(host, {
      tools: {
        step: tool({
          description: 'records when it starts and ends',
          inputSchema: z.object({ name: z.string() }),
          execute: async ({ name }) => {
            trace.push(`start ${name}`);
            await new Promise((resolve) => setImmediate(resolve));
            await new Promise((resolve) => setImmediate(resolve));
            trace.push(`end ${name}`);
            return name;
          },
        }),
      },
    });
    const model = scriptedModel([
      {
        calls: [
          { id: 's1', name: 'step', input: { name: 'a' } },
          { id: 's2', name: 'step', input: { name: 'b' } },
          { id: 's3', name: 'step', input: { name: 'c' } },
        ],
      },
      { text: 'ok' },
    ]);
    await generateText({ model, tools: dsh.tools, prompt: 'go', stopWhen: stepCountIs(3) });
    expect(trace).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(resultsOf(host.events.list()).map(([id]) => id)).toEqual(['s1', 's2', 's3']);
    await dsh.settled();
    await expectOneCallAndResultEach(host, ['s1', 's2', 's3']);
  });

  it('still gives a result to a call the SDK admitted but never executed (the model stopped for length)', async () => {
    let ran = false;
    const host = await loggedHost({ defaultDecision: 'allow' });
    const dsh = dshTools(host, {
      tools: {
        touch: tool({
          description: 'sets a flag',
          inputSchema: z.object({}),
          execute: async () => {
            ran = true;
            return 'ran';
          },
        }),
      },
    });
    const model = scriptedModel([{ calls: [{ id: 'l1', name: 'touch', input: {} }], finish: 'length' }]);
    await generateText({ model, tools: dsh.tools, prompt: 'go' });
    expect(resultsOf(host.events.list())).toEqual([]);
    dsh.abandon('the conversation ended');
    await dsh.settled();
    await expectOneCallAndResultEach(host, ['l1']);
    const result = host.events.list().find((e: AnySessionEvent) => e.type === 'tool/result');
    expect(result?.data).toMatchObject({
      outcome: { status: 'error', error: { code: AiSdkErrorCode.NOT_EXECUTED, message: 'the conversation ended' } },
    });
    expect(ran).toBe(false);
    expect(logProblems(host.events.list())).toEqual([]);
  });

  it('ends a call held from an earlier step when the SDK starts the next one without executing it', async () => {
    const host = await loggedHost({ defaultDecision: 'allow' });
    const dsh = dshTools(host, { tools: { noop: tool({ description: 'nothing', inputSchema: z.object({}), execute: async () => 'x' }) } });
    const model = scriptedModel([
      { calls: [{ id: 'x1', name: 'noop', input: {} }], finish: 'length' },
      { calls: [{ id: 'x2', name: 'noop', input: {} }] },
    ]);
    await generateText({ model, tools: dsh.tools, prompt: 'first' });
    await generateText({ model, tools: dsh.tools, prompt: 'second', stopWhen: stepCountIs(2) });
    await dsh.settled();
    await expectOneCallAndResultEach(host, ['x1', 'x2']);
    expect(resultsOf(host.events.list())).toEqual([
      ['x1', 'error'],
      ['x2', 'ok'],
    ]);
  });
});

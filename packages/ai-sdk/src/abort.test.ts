import { type Outcome, z } from '@deepseek-ai/dsh-core';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { generateText, tool } from 'ai';
import { expect, it } from 'vitest';
import { expectOneCallAndResultEach, loggedHost } from './fixtures/logged-host.js';
import { scriptedModel } from './fixtures/scripted-model.js';
import { resultsOf } from './fixtures/workspace.js';
import { dshTools } from './index.js';

/** An SDK tool whose body, once running, has the integrator cancel the generation, and waits for its abortSignal. */
function waitingTool() {
  const controller = new AbortController();
  let sawAbort = false;
  const waiting = tool({
    description: 'waits until aborted',
    inputSchema: z.object({}),
    execute: (_input, { abortSignal }) =>
      new Promise((_resolve, reject) => {
        abortSignal?.addEventListener('abort', () => {
          sawAbort = true;
          reject(abortSignal.reason);
        });
        controller.abort(new Error('user pressed stop'));
      }),
  });
  return { tool: waiting, controller, sawAbort: () => sawAbort };
}

it("aborts the running body through dsh's signal when the SDK's abortSignal fires, and the call still gets one result", async () => {
  const w = waitingTool();
  const host = await loggedHost({ defaultDecision: 'allow' });
  const dsh = dshTools(host, { tools: { wait: w.tool } });
  const model = scriptedModel([{ calls: [{ id: 'ab1', name: 'wait', input: {} }] }, { text: 'never' }]);
  await generateText({ model, tools: dsh.tools, prompt: 'go', abortSignal: w.controller.signal }).catch(() => undefined);
  await dsh.settled();
  await expectOneCallAndResultEach(host, ['ab1']);
  expect(w.sawAbort()).toBe(true);
  expect(host.events.list().find((e) => e.type === 'tool/result')?.data).toMatchObject({ outcome: { status: 'error' } });
  expect(logProblems(host.events.list())).toEqual([]);
});

it("settles a call whose body ignores the SDK's abortSignal once the host's grace period ends, with one result", async () => {
  const controller = new AbortController();
  const host = await loggedHost({ defaultDecision: 'allow', abortGraceMs: 20 });
  const dsh = dshTools(host, {
    tools: {
      stuck: tool({
        description: 'never settles and never looks at its signal',
        inputSchema: z.object({}),
        execute: () =>
          new Promise(() => {
            controller.abort(new Error('user pressed stop'));
          }),
      }),
    },
  });
  const model = scriptedModel([{ calls: [{ id: 'st1', name: 'stuck', input: {} }] }, { text: 'never' }]);
  await generateText({ model, tools: dsh.tools, prompt: 'go', abortSignal: controller.signal }).catch(() => undefined);
  await dsh.settled();
  expect(resultsOf(host.events.list())).toEqual([['st1', 'error']]);
  await expectOneCallAndResultEach(host, ['st1']);
  expect(logProblems(host.events.list())).toEqual([]);
});

it('follows the abortSignal of an execute the SDK runs without asking needsApproval first', async () => {
  const w = waitingTool();
  const host = await loggedHost({ defaultDecision: 'allow' });
  const dsh = dshTools(host, { tools: { wait: w.tool } });
  const execute = dsh.tools.wait?.execute;
  if (execute === undefined) throw new Error('the tool has no execute');
  const outcome = (await execute({}, { toolCallId: 'direct1', messages: [], abortSignal: w.controller.signal })) as Outcome;
  expect(w.sawAbort()).toBe(true);
  expect(outcome.status).toBe('error');
  expect(resultsOf(host.events.list())).toEqual([['direct1', 'error']]);
  await expectOneCallAndResultEach(host, ['direct1']);
});

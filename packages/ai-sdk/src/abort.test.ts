import { createHost, z } from '@deepseek-ai/dsh-core';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { generateText, tool } from 'ai';
import { expect, it, vi } from 'vitest';
import { scriptedModel } from './fixtures/scripted-model.js';
import { resultsOf } from './fixtures/workspace.js';
import { dshTools } from './index.js';

it("aborts the running body through dsh's signal when the SDK's abortSignal fires, and the call still gets one result", async () => {
  const controller = new AbortController();
  let sawAbort = false;
  const host = createHost({ defaultDecision: 'allow' });
  const dsh = dshTools(host, {
    tools: {
      wait: tool({
        description: 'waits until aborted',
        inputSchema: z.object({}),
        execute: (_input, { abortSignal }) =>
          new Promise((_resolve, reject) => {
            abortSignal?.addEventListener('abort', () => {
              sawAbort = true;
              reject(abortSignal.reason);
            });
            // The body is running: now the integrator cancels the generation.
            controller.abort(new Error('user pressed stop'));
          }),
      }),
    },
  });
  const model = scriptedModel([{ calls: [{ id: 'ab1', name: 'wait', input: {} }] }, { text: 'never' }]);
  await generateText({ model, tools: dsh.tools, prompt: 'go', abortSignal: controller.signal }).catch(() => undefined);
  await vi.waitFor(() => expect(resultsOf(host.events.list())).toHaveLength(1), { timeout: 30_000 });
  expect(sawAbort).toBe(true);
  expect(host.events.list().find((e) => e.type === 'tool/result')?.data).toMatchObject({ outcome: { status: 'error' } });
  expect(logProblems(host.events.list())).toEqual([]);
});

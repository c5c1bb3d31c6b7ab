import { existsSync, readFileSync } from 'node:fs';
import { tool } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { recordingHook, tempDir } from './fixtures/hosts.js';
import { toolOutputs } from './fixtures/scripted-model.js';
import { agentWith, logOnDisk, oneCallAndResultEach, setup } from './fixtures/setup.js';

const input = { type: 'object' as const, properties: {}, required: [], additionalProperties: true as const };
const fails = () => {
  throw new Error('disk on fire');
};

/** A host whose PostToolUseFailure hook script records every payload it gets. */
async function failureHooked() {
  const failureHook = recordingHook(tempDir('dsh-openai-agents-failure-'), 'NEVER-BLOCKS');
  const s = await setup({
    rules: { allow: ['flaky'] },
    hooks: { PostToolUseFailure: [{ matcher: '.*', hooks: [{ type: 'command', command: failureHook.command }] }] },
  });
  const payloads = () =>
    existsSync(failureHook.log)
      ? readFileSync(failureHook.log, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
      : [];
  return { s, payloads };
}

function resultOf(sessionLog: string, callId: string) {
  return logOnDisk(sessionLog).find((e) => e.type === 'tool/result' && e.call === callId)?.data;
}

describe('an SDK tool whose execute throws', () => {
  it('is TOOL_FAILED in the log, and PostToolUseFailure hooks fire (bridge.tool)', async () => {
    const { s, payloads } = await failureHooked();
    const flaky = s.bridge.tool(s.host, { name: 'flaky', description: 'Fails.', parameters: input, strict: false, execute: fails });
    const { agent, model, runner } = agentWith([flaky], [{ calls: [{ id: 'call_f', name: 'flaky', args: {} }] }, { text: 'ok' }]);
    await runner.run(agent, 'go');
    await oneCallAndResultEach(s, model.calls);
    expect(resultOf(s.sessionLog, 'call_f')).toMatchObject({
      outcome: { status: 'error', error: { code: 'TOOL_FAILED', message: expect.stringContaining('disk on fire') } },
    });
    expect(toolOutputs(model.requests[1])[0]?.[1]).toMatch(/^Error \(TOOL_FAILED\): .*disk on fire/);
    expect(payloads()).toMatchObject([{ hook_event_name: 'PostToolUseFailure', tool_name: 'flaky', tool_use_id: 'call_f' }]);
  });

  it("is TOOL_FAILED with the errorFunction's text as the message when the tool has one", async () => {
    const { s, payloads } = await failureHooked();
    const flaky = s.bridge.tool(s.host, {
      name: 'flaky',
      description: 'Fails.',
      parameters: input,
      strict: false,
      execute: fails,
      errorFunction: (_context, error) => `flaky is down (${(error as Error).message})`,
    });
    const { agent, model, runner } = agentWith([flaky], [{ calls: [{ id: 'call_f', name: 'flaky', args: {} }] }, { text: 'ok' }]);
    await runner.run(agent, 'go');
    await oneCallAndResultEach(s, model.calls);
    expect(resultOf(s.sessionLog, 'call_f')).toMatchObject({
      outcome: { status: 'error', error: { code: 'TOOL_FAILED', message: 'flaky is down (disk on fire)' } },
    });
    expect(toolOutputs(model.requests[1])).toEqual([['call_f', 'Error (TOOL_FAILED): flaky is down (disk on fire)']]);
    expect(payloads()).toHaveLength(1);
  });

  it('is TOOL_FAILED when a prebuilt tool with the default errorFunction is wrapped', async () => {
    const { s, payloads } = await failureHooked();
    const flaky = s.bridge.wrap(s.host, tool({ name: 'flaky', description: 'Fails.', parameters: input, strict: false, execute: fails }));
    const { agent, model, runner } = agentWith([flaky], [{ calls: [{ id: 'call_f', name: 'flaky', args: {} }] }, { text: 'ok' }]);
    await runner.run(agent, 'go');
    await oneCallAndResultEach(s, model.calls);
    expect(resultOf(s.sessionLog, 'call_f')).toMatchObject({ outcome: { status: 'error', error: { code: 'TOOL_FAILED' } } });
    expect(payloads()).toHaveLength(1);
  });
});

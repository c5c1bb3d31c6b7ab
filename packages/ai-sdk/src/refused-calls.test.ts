import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from '@deepseek-ai/dsh-core';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import { eventsOnDisk, expectOneCallAndResultEach, loggedHost } from './fixtures/logged-host.js';
import { promptText, scriptedModel, scriptedStreamModel, type Turn } from './fixtures/scripted-model.js';
import { workspace } from './fixtures/workspace.js';
import { dshTools } from './index.js';

const ws = workspace();
afterAll(() => ws.remove());
const notes = ws.file('notes.txt', 'the notes say hello\n');

/** The outcome logged on disk for call `id`. */
function loggedOutcome(host: Awaited<ReturnType<typeof loggedHost>>, id: string) {
  return eventsOnDisk(host).find((e) => e.type === 'tool/result' && e.call === id)?.data.outcome;
}

async function fsHost() {
  const host = await loggedHost({ defaultDecision: 'allow' });
  await host.use(toolFs({ cwd: ws.dir }));
  await host.use(toolBash({ cwd: ws.dir }));
  return host;
}

/** One step of calls, then a final text, through generateText with dsh's repair. */
async function converse(dsh: ReturnType<typeof dshTools>, turns: readonly Turn[]) {
  const model = scriptedModel(turns);
  const result = await generateText({
    model,
    tools: dsh.tools,
    prepareStep: dsh.prepareStep,
    experimental_repairToolCall: dsh.repairToolCall,
    prompt: 'go',
    stopWhen: stepCountIs(4),
  });
  await dsh.settled();
  return { model, result };
}

describe('calls the SDK refuses before any tool sees them', () => {
  it('logs a call whose arguments are not JSON as INVALID_ARGS, which the model reads, and the loop goes on', async () => {
    const host = await fsHost();
    const dsh = dshTools(host);
    const { model, result } = await converse(dsh, [
      { calls: [{ id: 'j1', name: 'read', wire: `{"file_path": "${notes}"` }] },
      { calls: [{ id: 'j2', name: 'read', input: { file_path: notes } }] },
      { text: 'read it on the second try' },
    ]);
    expect(result.text).toBe('read it on the second try');
    expect(promptText(model, 1)).toContain('INVALID_ARGS: the arguments are not JSON');
    expect(promptText(model, 2)).toContain('the notes say hello');
    expect(loggedOutcome(host, 'j1')).toMatchObject({ status: 'error', stage: 'validate', error: { code: 'INVALID_ARGS' } });
    await expectOneCallAndResultEach(host, ['j1', 'j2']);
    expect(logProblems(host.events.list())).toEqual([]);
  });

  it('logs a call to a tool nobody has as UNKNOWN_TOOL, beside the valid call of the same step', async () => {
    const host = await fsHost();
    const dsh = dshTools(host);
    const { model, result } = await converse(dsh, [
      {
        calls: [
          { id: 'u1', name: 'read', input: { file_path: notes } },
          { id: 'u2', name: 'teleport', input: { to: 'mars' } },
        ],
      },
      { text: 'no teleport then' },
    ]);
    expect(result.text).toBe('no teleport then');
    expect(promptText(model, 1)).toContain('UNKNOWN_TOOL: there is no tool named');
    expect(promptText(model, 1)).toContain('the notes say hello');
    expect(loggedOutcome(host, 'u2')).toMatchObject({ status: 'error', error: { code: 'UNKNOWN_TOOL' } });
    await expectOneCallAndResultEach(host, ['u1', 'u2']);
  });

  it('denies a call to a host tool that was not offered to the model, without running it', async () => {
    const host = await fsHost();
    const dsh = dshTools(host, { include: ['read'] });
    const marker = join(ws.dir, 'not-offered-marker');
    const { model } = await converse(dsh, [
      { calls: [{ id: 'n1', name: 'bash', input: { command: `touch '${marker}'` } }] },
      { text: 'ok' },
    ]);
    expect(existsSync(marker)).toBe(false);
    expect(promptText(model, 1)).toContain('UNKNOWN_TOOL: the tool \\"bash\\" is not offered to the model');
    expect(loggedOutcome(host, 'n1')).toMatchObject({ status: 'denied', stage: 'pre-execute', by: 'ai-sdk/not-offered' });
    await expectOneCallAndResultEach(host, ['n1']);
    // The tap that denied it goes with the adapter.
    dsh.dispose();
    expect(host.hooks.preExecute.names()).not.toContain('ai-sdk/not-offered');
  });

  it('logs wrong-typed input to an SDK tool with a zod schema as INVALID_ARGS naming the field; the body never runs', async () => {
    const host = await loggedHost({ defaultDecision: 'allow' });
    const ran: string[] = [];
    const weather = tool({
      description: 'the weather in a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        ran.push(city);
        return 'sunny';
      },
    });
    const dsh = dshTools(host, { tools: { weather } });
    const { model } = await converse(dsh, [{ calls: [{ id: 'w1', name: 'weather', input: { city: 42 } }] }, { text: 'ok' }]);
    expect(ran).toEqual([]);
    expect(promptText(model, 1)).toContain('INVALID_ARGS');
    expect(loggedOutcome(host, 'w1')).toMatchObject({
      status: 'error',
      error: { code: 'INVALID_ARGS', message: expect.stringContaining('city') },
    });
    await expectOneCallAndResultEach(host, ['w1']);
  });

  it("logs input an SDK tool's non-zod schema rejects as INVALID_ARGS with the SDK's reason; the body never runs", async () => {
    const host = await loggedHost({ defaultDecision: 'allow' });
    const ran: unknown[] = [];
    const echo = tool({
      description: 'echoes',
      inputSchema: jsonSchema<{ text: string }>(
        { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        {
          validate: (value) =>
            typeof (value as { text?: unknown }).text === 'string'
              ? { success: true, value: value as { text: string } }
              : { success: false, error: new Error('text must be a string') },
        },
      ),
      execute: async (input) => {
        ran.push(input);
        return 'echoed';
      },
    });
    const dsh = dshTools(host, { tools: { echo } });
    const { model } = await converse(dsh, [
      {
        calls: [
          { id: 'e1', name: 'echo', input: { text: 7 } },
          { id: 'e2', name: 'echo', input: { text: 'fine' } },
        ],
      },
      { text: 'ok' },
    ]);
    expect(ran).toEqual([{ text: 'fine' }]);
    expect(promptText(model, 1)).toContain('text must be a string');
    expect(loggedOutcome(host, 'e1')).toMatchObject({
      status: 'error',
      stage: 'validate',
      error: { code: 'INVALID_ARGS', message: expect.stringContaining('text must be a string') },
    });
    await expectOneCallAndResultEach(host, ['e1', 'e2']);
  });

  it("leaves a refused call to a tool passed beside dsh's to the SDK: the pipeline never sees that tool", async () => {
    const host = await fsHost();
    const dsh = dshTools(host, { include: ['read'] });
    const beside = tool({ description: 'not governed by dsh', inputSchema: z.object({ n: z.number() }), execute: async () => 1 });
    const model = scriptedModel([{ calls: [{ id: 'b1', name: 'beside', input: { n: 'one' } }] }, { text: 'ok' }]);
    await generateText({
      model,
      tools: { ...dsh.tools, beside },
      experimental_repairToolCall: dsh.repairToolCall,
      prompt: 'go',
      stopWhen: stepCountIs(3),
    });
    await dsh.settled();
    expect(promptText(model, 1)).toContain('Invalid input for tool beside');
    expect(host.events.list().filter((e) => e.type === 'tool/call')).toEqual([]);
  });

  it('does the same for streamText', async () => {
    const host = await fsHost();
    const dsh = dshTools(host);
    const model = scriptedStreamModel([{ calls: [{ id: 's1', name: 'read', wire: '{"file_path": ' }] }, { text: 'streamed on' }]);
    const result = streamText({
      model,
      tools: dsh.tools,
      prepareStep: dsh.prepareStep,
      experimental_repairToolCall: dsh.repairToolCall,
      prompt: 'go',
      stopWhen: stepCountIs(3),
    });
    expect(await result.text).toBe('streamed on');
    await dsh.settled();
    expect(JSON.stringify(model.doStreamCalls[1]?.prompt)).toContain('INVALID_ARGS');
    await expectOneCallAndResultEach(host, ['s1']);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHost, DshError, jsonSchemaOf, z } from '@deepseek-ai/dsh-core';
import { logProblems } from '@deepseek-ai/dsh-core/testing';
import { hooksBridge } from '@deepseek-ai/dsh-hooks-bridge';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import { expectOneCallAndResultEach, loggedHost } from './fixtures/logged-host.js';
import { promptText, scriptedModel } from './fixtures/scripted-model.js';
import { resultsOf, workspace } from './fixtures/workspace.js';
import { AiSdkErrorCode, aiSdkApprovals, dshTools } from './index.js';

const ws = workspace();
afterAll(() => ws.remove());

const weather = tool({
  description: 'the weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }, { toolCallId, abortSignal }) => ({
    city,
    sky: 'clear',
    toolCallId,
    abortable: abortSignal instanceof AbortSignal,
  }),
});

describe('a tool the integrator wrote for the SDK', () => {
  it('passes the pipeline: logged, seen by a PreToolUse hook, vetoed by a guard, with the SDK options handed to its execute', async () => {
    const seen = join(ws.dir, 'weather-hook.json');
    const pre = ws.script('weather.sh', `cat >> '${seen}'; printf '\\n---\\n' >> '${seen}'`);
    const host = await loggedHost({ defaultDecision: 'allow' });
    await host.use(
      hooksBridge({
        projectDir: ws.dir,
        homeDir: ws.dir,
        userSettings: false,
        sources: [],
        hooks: { claude: { PreToolUse: [{ matcher: 'weather', hooks: [{ type: 'command', command: pre }] }] } },
      }),
    );
    host.guards.register({
      id: 'no-atlantis',
      check: ({ args }) => ((args as { city?: string }).city === 'Atlantis' ? { deny: 'Atlantis is not on the map' } : 'abstain'),
    });
    const dsh = dshTools(host, { tools: { weather } });
    expect(host.tools.get('weather')?.description).toBe('the weather in a city');
    const model = scriptedModel([
      {
        calls: [
          { id: 'w1', name: 'weather', input: { city: 'Oslo' } },
          { id: 'w2', name: 'weather', input: { city: 'Atlantis' } },
        ],
      },
      { text: 'ok' },
    ]);
    const result = await generateText({ model, tools: dsh.tools, prompt: 'go', stopWhen: stepCountIs(3) });

    expect(result.steps[0]?.toolResults.map((r) => r.output)).toMatchObject([
      { status: 'ok', output: { city: 'Oslo', sky: 'clear', toolCallId: 'w1', abortable: true } },
      { status: 'denied', stage: 'guard', reason: 'Atlantis is not on the map' },
    ]);
    const hookInputs = readFileSync(seen, 'utf8')
      .split('\n---\n')
      .filter((chunk) => chunk.trim() !== '')
      .map((chunk) => JSON.parse(chunk));
    expect(hookInputs.map((h) => h.tool_input.city)).toEqual(['Oslo', 'Atlantis']);
    expect(promptText(model, 1)).toContain('Atlantis is not on the map');
    expect(resultsOf(host.events.list())).toEqual([
      ['w1', 'ok'],
      ['w2', 'denied'],
    ]);
    await dsh.settled();
    await expectOneCallAndResultEach(host, ['w1', 'w2']);
    expect(logProblems(host.events.list())).toEqual([]);
  });

  it("keeps the tool's own toModelOutput for its output", async () => {
    const host = await loggedHost({ defaultDecision: 'allow' });
    const shouting = tool({
      description: 'shouts',
      inputSchema: z.object({ word: z.string() }),
      execute: async ({ word }) => word,
      toModelOutput: ({ output }) => ({ type: 'text', value: `${String(output).toUpperCase()}!` }),
    });
    const dsh = dshTools(host, { tools: { shouting } });
    const model = scriptedModel([{ calls: [{ id: 't1', name: 'shouting', input: { word: 'hey' } }] }, { text: 'ok' }]);
    await generateText({ model, tools: dsh.tools, prompt: 'go', stopWhen: stepCountIs(3) });
    expect(promptText(model, 1)).toContain('HEY!');
    await dsh.settled();
    await expectOneCallAndResultEach(host, ['t1']);
  });

  it('takes a tool whose schema is not zod: the SDK validates it, dsh sees an object', async () => {
    const host = await loggedHost({ defaultDecision: 'allow' });
    const echo = tool({
      description: 'echoes',
      inputSchema: jsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
      execute: async ({ text }) => ({ text }),
    });
    const dsh = dshTools(host, { tools: { echo } });
    expect(jsonSchemaOf(host.tools.get('echo')?.input as z.ZodType)).toMatchObject({ type: 'object' });
    const model = scriptedModel([{ calls: [{ id: 'e1', name: 'echo', input: { text: 'abc' } }] }, { text: 'ok' }]);
    const result = await generateText({ model, tools: dsh.tools, prompt: 'go', stopWhen: stepCountIs(3) });
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({ status: 'ok', output: { text: 'abc' } });
    await dsh.settled();
    await expectOneCallAndResultEach(host, ['e1']);
  });
});

describe('setup errors', () => {
  const codeOf = (run: () => unknown): string | undefined => {
    try {
      run();
    } catch (error) {
      return DshError.isInstance(error) ? `${error.code} ${error.message}` : String(error);
    }
    return undefined;
  };

  it('refuses bad options with AI_SDK_INVALID_OPTIONS naming the field', () => {
    const host = createHost();
    expect(codeOf(() => dshTools(host, { maxParallel: 0 }))).toMatch(/^AI_SDK_INVALID_OPTIONS dshTools: maxParallel:/);
    expect(codeOf(() => dshTools(host, { tools: { 'bad name': weather } }))).toMatch(/^AI_SDK_INVALID_OPTIONS dshTools: tools/);
    expect(codeOf(() => dshTools(host, { approvals: {} as never }))).toMatch(
      /^AI_SDK_INVALID_OPTIONS dshTools: approvals: must be made by aiSdkApprovals/,
    );
    expect(codeOf(() => aiSdkApprovals({ fallback: 'yes' as never }))).toMatch(/^AI_SDK_INVALID_OPTIONS aiSdkApprovals: fallback/);
  });

  it('refuses framework tools it cannot run through the pipeline, and leaves the host as it was', async () => {
    const host = createHost();
    await host.use(toolFs({ cwd: ws.dir }));
    const clientSide = tool({ description: 'asks the browser', inputSchema: z.object({}) });
    expect(codeOf(() => dshTools(host, { tools: { weather, clientSide } }))).toMatch(
      new RegExp(`^${AiSdkErrorCode.TOOL_WITHOUT_EXECUTE} tools.clientSide`),
    );
    expect(host.tools.get('weather')).toBeUndefined();
    expect(codeOf(() => dshTools(host, { tools: { read: weather } }))).toMatch(new RegExp(`^${AiSdkErrorCode.TOOL_NAME_TAKEN} tools.read`));
    expect(codeOf(() => dshTools(host, { include: ['read', 'nope'] }))).toMatch(new RegExp(`^${AiSdkErrorCode.UNKNOWN_TOOL} include`));
    expect(host.hooks.execute.names()).toEqual([]);
  });

  it('refuses one approvals bridge for two adapters, until the first is disposed', () => {
    const approvals = aiSdkApprovals();
    const first = dshTools(createHost({ approval: approvals.provider }), { approvals });
    expect(codeOf(() => dshTools(createHost(), { approvals }))).toMatch(new RegExp(`^${AiSdkErrorCode.APPROVALS_IN_USE}`));
    first.dispose();
    expect(codeOf(() => dshTools(createHost(), { approvals }))).toBeUndefined();
  });

  it('offers only the included tools, with their JSON Schema', async () => {
    const host = createHost();
    await host.use(toolFs({ cwd: ws.dir }));
    const dsh = dshTools(host, { include: ['read', 'grep'] });
    expect(Object.keys(dsh.tools)).toEqual(['read', 'grep']);
    expect(dsh.tools.read?.description).toBe(host.tools.get('read')?.description);
  });
});

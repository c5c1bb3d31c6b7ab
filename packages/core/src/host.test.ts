import { describe, expect, it } from 'vitest';
import { codeOf } from './__fixtures__/errors.js';
import { echoTool } from './__fixtures__/tools.js';
import { createHost, definePlugin, defineTool, z } from './index.js';
import { createTestHost } from './testing/index.js';

describe('createHost', () => {
  it('validates options, naming the field', () => {
    expect(() => createHost({ defaultDecision: 'maybe' as never })).toThrow(/defaultDecision/);
    expect(codeOf(() => createHost({ maxParallel: 0 }))).toBe('INVALID_OPTIONS');
    expect(codeOf(() => createHost({ approval: 'yes' as never }))).toBe('INVALID_OPTIONS');
    expect(codeOf(() => createHost({ unknownOption: 1 } as never))).toBe('INVALID_OPTIONS');
    expect(createHost({ session: 'abc' }).session).toBe('abc');
    expect(createHost().session).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('host.tools', () => {
  it('refuses run_code on the public path and accepts it once on the reserved path', () => {
    const host = createHost();
    const runCode = defineTool({ name: 'run_code', description: 'Runs code.', input: z.object({ code: z.string() }), execute: () => null });
    expect(codeOf(() => host.tools.register(runCode))).toBe('RESERVED_TOOL_NAME');
    const unregister = host.tools.registerReserved('run_code', runCode);
    expect(codeOf(() => host.tools.registerReserved('run_code', runCode))).toBe('DUPLICATE_TOOL');
    expect(codeOf(() => host.tools.registerReserved('echo' as 'run_code', { ...runCode, name: 'echo' }))).toBe('RESERVED_TOOL_NAME');
    unregister();
    expect(host.tools.get('run_code')).toBeUndefined();
  });

  it('refuses duplicate and malformed tools with codes', () => {
    const host = createHost();
    host.tools.register(echoTool());
    expect(codeOf(() => host.tools.register(echoTool()))).toBe('DUPLICATE_TOOL');
    const base = { description: 'd', input: z.object({}), execute: () => null };
    expect(codeOf(() => host.tools.register({ ...base, name: 'has space' }))).toBe('INVALID_TOOL_DEFINITION');
    expect(codeOf(() => host.tools.register({ ...base, name: 'x', description: ' ' }))).toBe('INVALID_TOOL_DEFINITION');
    expect(codeOf(() => host.tools.register({ ...base, name: 'x', input: {} as never }))).toBe('INVALID_TOOL_DEFINITION');
    expect(codeOf(() => host.tools.register({ ...base, name: 'x', input: z.string() as never }))).toBe('INVALID_TOOL_DEFINITION');
    expect(codeOf(() => host.tools.register({ ...base, name: 'x', output: 5 as never }))).toBe('INVALID_TOOL_DEFINITION');
    expect(codeOf(() => host.tools.register({ ...base, name: 'x', execute: 1 as never }))).toBe('INVALID_TOOL_DEFINITION');
    expect(codeOf(() => host.tools.register({ ...base, name: 'x', timeoutMs: -1 }))).toBe('INVALID_TOOL_DEFINITION');
    expect(codeOf(() => host.tools.register(null as never))).toBe('INVALID_TOOL_DEFINITION');
  });

  it('gives the model name, description and JSON Schema only: no timeouts or callbacks leak', () => {
    const host = createHost();
    host.tools.register({ ...echoTool(), timeoutMs: 5000, parallel: true, idempotent: true });
    const schemas = host.tools.schemas();
    expect(schemas).toHaveLength(1);
    expect(Object.keys(schemas[0] ?? {}).sort()).toEqual(['description', 'inputSchema', 'name']);
    expect(schemas[0]?.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    expect(JSON.stringify(schemas)).not.toContain('5000');
  });

  it('finds a tool by its name in another dialect', () => {
    const host = createHost();
    host.tools.register({
      ...echoTool(),
      external: { claude: { name: 'Echo', toExternal: (a) => ({ message: a.text }), fromExternal: (i) => ({ text: i.message }) } },
    });
    expect(host.tools.findExternal('claude', 'Echo')?.name).toBe('echo');
    expect(host.tools.findExternal('gemini', 'Echo')).toBeUndefined();
    expect(host.tools.list().map((t) => t.name)).toEqual(['echo']);
  });

  it('runs a sub-call through the whole pipeline with the parent token and follows its signal', async () => {
    const t = await createTestHost();
    const runs: string[] = [];
    t.host.tools.register(echoTool(runs));
    t.host.tools.register(
      defineTool({
        name: 'outer',
        description: 'Calls echo twice.',
        input: z.object({}),
        execute: async (_args, ctx) => {
          const first = await ctx.tools.execute({ id: `${ctx.call.id}:1`, name: 'echo', args: { text: 'a' } });
          const second = await ctx.tools.execute({ id: `${ctx.call.id}:2`, name: 'echo', args: '{"text":"b"}' });
          return [first.status, second.status];
        },
      }),
    );
    t.host.hooks.postExecute.tap('ctx', () => ({ addContext: 'note' }));
    const { results, context } = await t.host.runStep({ calls: [{ id: 'o', name: 'outer', args: {} }] });
    expect(results[0]?.outcome).toMatchObject({ status: 'ok', output: ['ok', 'ok'] });
    expect(runs).toEqual(['o:1:a', 'o:2:b']);
    const events = t.host.events.list();
    const tokens = new Set(events.filter((e) => e.call !== undefined).map((e) => e.token));
    expect(tokens.size).toBe(1);
    expect(events.find((e) => e.call === 'o:1')).toMatchObject({ type: 'tool/call', data: { parent: 'o' } });
    expect(context?.parts.map((p) => p.call)).toEqual(['o']);
  });

  it('runs a standalone call with a fresh token', async () => {
    const host = createHost({ defaultDecision: 'allow' });
    host.tools.register(echoTool());
    const outcome = await host.tools.execute({ id: 'solo', name: 'echo', args: { text: 'x' } });
    expect(outcome).toMatchObject({ status: 'ok' });
    const aborted = await host.tools.execute(
      { id: 'gone', name: 'echo', args: { text: 'x' } },
      { id: 'p', token: 't', signal: AbortSignal.abort() },
    );
    expect(aborted).toMatchObject({ status: 'error', error: { code: 'ABORTED_BEFORE_DISPATCH' } });
  });
});

describe('host.use', () => {
  it('registers a plugin once, in order, and lists it', async () => {
    const host = createHost();
    const plugin = definePlugin({ name: 'echo-plugin', version: '1.2.3', register: (h) => void h.tools.register(echoTool()) });
    await host.use(plugin);
    await expect(host.use(plugin)).rejects.toMatchObject({ code: 'DUPLICATE_PLUGIN' });
    expect(host.plugins()).toEqual([{ name: 'echo-plugin', version: '1.2.3' }]);
    expect(host.tools.get('echo')).toBeDefined();
  });

  it('refuses a plugin whose dependency is missing, one that throws and one that never finishes', async () => {
    const host = createHost({ pluginTimeoutMs: 20 });
    await expect(host.use(definePlugin({ name: 'b', version: '1', dependencies: ['a'], register: () => undefined }))).rejects.toMatchObject(
      {
        code: 'PLUGIN_DEPENDENCY_MISSING',
      },
    );
    await expect(
      host.use(
        definePlugin({
          name: 'c',
          version: '1',
          register: () => {
            throw new Error('bad config');
          },
        }),
      ),
    ).rejects.toMatchObject({ code: 'PLUGIN_REGISTER_FAILED', message: expect.stringContaining('bad config') });
    await expect(
      host.use(definePlugin({ name: 'd', version: '1', register: () => new Promise<void>(() => undefined) })),
    ).rejects.toMatchObject({
      code: 'PLUGIN_REGISTER_TIMEOUT',
    });
    await host.use(definePlugin({ name: 'a', version: '1', register: () => undefined }));
    await host.use(definePlugin({ name: 'b', version: '1', dependencies: ['a'], register: () => undefined }));
    expect(host.plugins().map((p) => p.name)).toEqual(['a', 'b']);
  });

  it('refuses things that are not plugins', async () => {
    expect(codeOf(() => definePlugin(null as never))).toBe('INVALID_PLUGIN');
    expect(codeOf(() => definePlugin({ name: '', version: '1', register: () => undefined }))).toBe('INVALID_PLUGIN');
    expect(codeOf(() => definePlugin({ name: 'x', register: () => undefined } as never))).toBe('INVALID_PLUGIN');
    await expect(createHost().use({} as never)).rejects.toMatchObject({ code: 'INVALID_PLUGIN' });
  });
});

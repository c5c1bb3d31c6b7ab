import { definePlugin, z } from '@deepseek-ai/dsh-core';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { codeHost, errorOf, testTools } from './fixtures/kit.js';
import { codeMode } from './index.js';

const probe = () => ({ started: [], aborted: [], active: 0, maxActive: 0 });

describe('codeMode: the plugin', () => {
  it('registers run_code through the reserved path, with the callable tools declared in its description', async () => {
    const t = await codeHost({ exclude: ['fail'] });
    const schema = t.host.tools.schemas().find((s) => s.name === 'run_code');
    expect(schema?.inputSchema).toMatchObject({ type: 'object', required: ['code'] });
    expect(schema?.description).toContain('add(input: {');
    expect(schema?.description).toContain('/** The first addend. */');
    expect(schema?.description).toContain('}): Promise<{\n    sum: number;\n  }>;');
    expect(schema?.description).not.toContain('fail(input');
    expect(schema?.description).not.toContain('run_code(input');
    expect(t.host.plugins().map((p) => p.name)).toContain('code-mode');
  });

  it('keeps run_code reserved: the public path still refuses it', async () => {
    const t = await codeHost();
    expect(() => t.host.tools.register({ name: 'run_code', description: 'impostor', input: z.object({}), execute: () => null })).toThrow(
      expect.objectContaining({ code: 'RESERVED_TOOL_NAME' }),
    );
  });

  it('validates options at the factory, naming the field', () => {
    expect(() => codeMode({ timeoutMs: -1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringContaining('timeoutMs') }),
    );
    expect(() => codeMode({ memoryLimitBytes: 1024 })).toThrow(/memoryLimitBytes/);
    expect(() => codeMode({ tools: ['run_code'] })).toThrow(/tools\.0: "run_code" can never be called/);
    expect(() => codeMode({ unknownOption: true } as never)).toThrow(/INVALID_OPTIONS|unknownOption|Unrecognized/);
  });

  it('refuses to register when a tool named in `tools` is not registered yet', async () => {
    await expect(createTestHost({ plugins: [codeMode({ tools: ['add'] }), testTools(probe())] })).rejects.toThrow(
      /"add" is not registered; register the plugins that provide it before codeMode/,
    );
  });

  it('fixes the callable tools at registration: a tool registered later is not callable', async () => {
    const late = definePlugin({
      name: 'late',
      version: '1.0.0',
      register(host) {
        host.tools.register({ name: 'late', description: 'Registered after code mode.', input: z.object({}), execute: () => 'late' });
      },
    });
    const t = await codeHost({}, { plugins: [late] });
    expect(t.host.tools.get('late')).toBeDefined();
    expect(errorOf(await t.call('run_code', { code: 'return await tools.late({});' })).data.error?.name).toBe('TypeError');
  });

  it('presents the call as code and the result with its number of calls', async () => {
    const t = await codeHost();
    await t.call('run_code', { code: 'await tools.add({ a: 1, b: 1 });\nreturn 1;' }, 'card');
    const cards = t.ui.cards.filter((c) => c.call.id === 'card');
    expect(cards.map((c) => [c.kind, c.card.title, c.card.summary, c.card.format])).toEqual([
      ['pending', 'Run code', '2 lines of JavaScript', 'code'],
      ['completed', 'Run code', 'returned after 1 tool call', 'code'],
    ]);
  });
});

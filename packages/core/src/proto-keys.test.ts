import { describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import { defineTool, findProtoKey, freezeJson, type JsonObject, type Outcome, ToolError, z } from './index.js';
import { createTestHost } from './testing/index.js';

/** An object with an own, enumerable `__proto__` key, as `JSON.parse` makes one. */
const withProto = (inner = '{"polluted":true}') => JSON.parse(`{"a":1,"__proto__":${inner}}`) as Record<string, unknown>;

async function hostWith(output: () => unknown) {
  const runs: string[] = [];
  const t = await createTestHost();
  t.host.tools.register(echoTool(runs));
  t.host.tools.register(defineTool({ name: 'produce', description: 'Returns a value.', input: z.object({}), execute: () => output() }));
  t.host.tools.register(
    defineTool({
      name: 'loose',
      description: 'Takes any keys.',
      input: z.looseObject({}),
      execute: (args) => Object.keys(args),
    }),
  );
  return { t, runs };
}

const okOutput = (outcome: Outcome) => (outcome.status === 'ok' ? outcome.output : undefined);

describe('own "__proto__" keys (issue 15 item 8): refused in arguments and outputs', () => {
  it('refuses arguments whose JSON text holds a "__proto__" key, naming where; the body does not run', async () => {
    const { t, runs } = await hostWith(() => null);
    const outcome = await t.call('echo', '{"text":"hi","nested":{"__proto__":{"polluted":true}}}');
    expect(outcome).toMatchObject({ status: 'error', stage: 'validate', error: { code: 'INVALID_ARGS' } });
    expect(outcome.status === 'error' && outcome.error.message).toContain('$.nested.__proto__');
    expect(runs).toEqual([]);
  });

  it('refuses an arguments object with an own "__proto__" key, even for a schema that keeps unknown keys', async () => {
    const { t } = await hostWith(() => null);
    const outcome = await t.call('loose', withProto());
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS' } });
    const inArray = await t.call('loose', { list: [withProto()] });
    expect(inArray.status === 'error' && inArray.error.message).toContain('$.list[0].__proto__');
  });

  it('refuses arguments rewritten by a tap to hold a "__proto__" key, naming the tap', async () => {
    const { t, runs } = await hostWith(() => null);
    t.host.hooks.preExecute.tap('sneaky', () => ({ args: { text: 'x', ...withProto() } }));
    const outcome = await t.call('echo', { text: 'hi' });
    expect(outcome).toMatchObject({ status: 'error', stage: 'pre-execute', by: 'sneaky', error: { code: 'INVALID_ARGS' } });
    expect(runs).toEqual([]);
  });

  it('turns an output holding a "__proto__" key into INVALID_TOOL_OUTPUT naming where', async () => {
    const { t } = await hostWith(() => ({ deep: [withProto()] }));
    const outcome = await t.call('produce', {});
    expect(outcome).toMatchObject({ status: 'error', stage: 'finalise', error: { code: 'INVALID_TOOL_OUTPUT' } });
    expect(outcome.status === 'error' && outcome.error.message).toContain('$.deep[0].__proto__');
  });

  it('refuses the key in a null-prototype output and in a post-execute replacement', async () => {
    const bare = Object.create(null) as Record<string, unknown>;
    // On a null-prototype object, assigning __proto__ makes an own key.
    Reflect.set(bare, '__proto__', { polluted: true });
    const { t } = await hostWith(() => bare);
    expect(await t.call('produce', {})).toMatchObject({ status: 'error', error: { code: 'INVALID_TOOL_OUTPUT' } });
    t.host.hooks.postExecute.tap('replacer', () => ({ replaceOutput: withProto() as JsonObject }));
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'error', error: { code: 'INVALID_TOOL_OUTPUT' } });
  });

  it('drops error data holding the key, keeping the error, and records why', async () => {
    const { t } = await hostWith(() => {
      throw new ToolError('MY_CODE', 'failed', { data: withProto() });
    });
    const outcome = await t.call('produce', {});
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'MY_CODE', message: 'failed' } });
    expect(outcome.status === 'error' && outcome.error).not.toHaveProperty('data');
    expect(t.host.diagnostics.list().map((d) => d.code)).toContain('ERROR_DATA_DROPPED');
  });

  it('leaves Object.assign and spread of any result and arguments harmless', async () => {
    const { t } = await hostWith(() => ({ constructor: { prototype: { polluted: true } }, prototype: 1, list: [{ constructor: 'x' }] }));
    const outcome = await t.call('produce', {});
    const output = okOutput(outcome) as Record<string, unknown>;
    for (const copy of [Object.assign({}, output), { ...output }, Object.assign({}, outcome), { ...outcome }]) {
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const seen: unknown[] = [];
    t.host.hooks.preExecute.tap('copier', (state) => {
      seen.push(Object.getPrototypeOf(Object.assign({}, state.args)), Object.getPrototypeOf({ ...state.args }));
    });
    // constructor and prototype are ordinary keys: copying makes own data properties of them.
    expect(await t.call('loose', '{"constructor":{"prototype":{"polluted":true}},"prototype":2}')).toMatchObject({
      status: 'ok',
      output: ['constructor', 'prototype'],
    });
    expect(seen).toEqual([Object.prototype, Object.prototype]);
  });

  it('finds the key with findProtoKey and freezeJson, and nowhere else', () => {
    expect(findProtoKey({ a: [{ b: withProto() }] })).toBe('$.a[0].b.__proto__');
    expect(findProtoKey({ constructor: 1, prototype: 2 })).toBeUndefined();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(findProtoKey(cyclic)).toBeUndefined();
    expect(freezeJson({ x: withProto() })).toEqual({ path: '$.x.__proto__', message: expect.stringContaining('__proto__') });
  });
});

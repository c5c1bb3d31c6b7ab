import { describe, expect, it } from 'vitest';
import { codeHost, errorOf, okOutput, wellFormed } from './fixtures/kit.js';

const MiB = 1024 * 1024;

/** The standard globals of a QuickJS context, plus the three code mode adds. */
const expectedGlobals = new Set(
  'Object Function Array Number parseFloat parseInt Infinity NaN undefined decodeURI encodeURI decodeURIComponent encodeURIComponent escape unescape isFinite isNaN globalThis Symbol Error EvalError RangeError ReferenceError SyntaxError TypeError URIError InternalError AggregateError Iterator Math Reflect String Boolean BigInt Date RegExp JSON Proxy Map Set WeakMap WeakSet ArrayBuffer SharedArrayBuffer Uint8ClampedArray Int8Array Uint8Array Int16Array Uint16Array Int32Array Uint32Array BigInt64Array BigUint64Array Float16Array Float32Array Float64Array DataView Promise WeakRef FinalizationRegistry Atomics eval tools console ToolCallError'.split(
    ' ',
  ),
);

describe('run_code threats: nothing of the host inside', () => {
  it('has no host globals: only standard built-ins, tools, console and ToolCallError', async () => {
    const t = await codeHost();
    const names = okOutput(await t.call('run_code', { code: 'return Object.getOwnPropertyNames(globalThis);' })).result as string[];
    expect(names.filter((name) => !expectedGlobals.has(name))).toEqual([]);
    const probe =
      'return [typeof require, typeof process, typeof module, typeof std, typeof os, typeof setTimeout, typeof fetch, typeof __dsh_call, typeof __dsh_log, typeof __dsh_done, typeof Error.prepareStackTrace];';
    expect(okOutput(await t.call('run_code', { code: probe })).result).toEqual(Array(11).fill('undefined'));
  });

  it('keeps constructor chains inside the guest', async () => {
    const t = await codeHost();
    const code = [
      'const r = await tools.add({ a: 1, b: 1 });',
      'return [',
      '  tools.add.constructor.constructor("return typeof process")(),',
      '  Function("return this")() === globalThis,',
      '  (async () => {}).constructor("return typeof require")() instanceof Promise,',
      '  console.log.constructor("return typeof process")(),',
      '  r.__proto__.constructor.constructor("return typeof process")(),',
      '  Object.getPrototypeOf(r) === Object.prototype,',
      '];',
    ].join('\n');
    expect(okOutput(await t.call('run_code', { code })).result).toEqual(['undefined', true, true, 'undefined', 'undefined', true]);
  });

  it('cannot load modules: dynamic import rejects and static import does not parse', async () => {
    const t = await codeHost();
    const dynamic = 'try { await import("fs"); return "loaded"; } catch (e) { return String(e); }';
    expect(okOutput(await t.call('run_code', { code: dynamic })).result).toMatch(/could not load module/);
    expect(errorOf(await t.call('run_code', { code: 'import fs from "fs";\nreturn 1;' })).code).toBe('CODE_SYNTAX');
    expect(
      errorOf(await t.call('run_code', { code: 'import { readFileSync } from "fs";\nreturn readFileSync("/etc/passwd");' })).code,
    ).toBe('CODE_SYNTAX');
  });

  it('keeps prototype pollution in the guest, and the next run starts clean', async () => {
    const t = await codeHost();
    const code = [
      'Object.prototype.polluted = "yes";',
      'Array.prototype.push = () => { throw new Error("hijacked push"); };',
      'JSON.parse = () => "hijacked parse";',
      'JSON.stringify = () => "hijacked stringify";',
      'Promise.prototype.then = function () { throw new Error("hijacked then"); };',
      'console.log("still", "logging");',
      'return { sum: (await tools.add({ a: 2, b: 2 })).sum };',
    ].join('\n');
    const output = okOutput(await t.call('run_code', { code }));
    expect(output.result).toEqual({ sum: 4 });
    expect(output.logs).toBe('still logging');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.parse('[1]')).toEqual([1]);
    const next = 'return [({}).polluted, typeof Array.prototype.push, JSON.stringify([1])];';
    expect(okOutput(await t.call('run_code', { code: next })).result).toEqual([null, 'function', '[1]']);
  });

  it('resolves tool names from the allowed set only: prototype names are not tools, and the set is frozen', async () => {
    const t = await codeHost();
    const code = [
      'const names = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "run_code", "nonexistent"];',
      'const kinds = names.map((n) => typeof tools[n]);',
      'const writes = [];',
      'for (const attempt of [() => { "use strict"; tools.add = () => 1; }, () => { "use strict"; globalThis.tools = {}; }, () => { "use strict"; console.log = null; }, () => { "use strict"; delete globalThis.tools; }]) {',
      '  try { attempt(); writes.push("allowed"); } catch (e) { writes.push(e.name); }',
      '}',
      'return { kinds, writes, proto: Object.getPrototypeOf(tools), frozen: Object.isFrozen(tools) };',
    ].join('\n');
    expect(okOutput(await t.call('run_code', { code })).result).toEqual({
      kinds: ['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined'],
      writes: ['TypeError', 'TypeError', 'TypeError', 'TypeError'],
      proto: null,
      frozen: true,
    });
  });
});

describe('run_code threats: loops, memory and stack', () => {
  const loops: [string, string][] = [
    ['a plain loop', 'for (;;) {}'],
    ['a loop after an await', 'await tools.add({ a: 1, b: 1 });\nwhile (true) {}'],
    ['a loop inside .then', 'await Promise.resolve().then(() => { for (;;) {} });'],
    ['a loop in a catch', 'try { throw new Error("x"); } catch { for (;;) {} }'],
    ['a loop in toJSON while the result is encoded', 'return { toJSON() { for (;;) {} } };'],
    ['a loop in a getter while arguments are encoded', 'await tools.echo({ value: { get x() { for (;;) {} } } });'],
    ['a loop in a getter while a value is logged', 'console.log({ get x() { for (;;) {} } });'],
    ['an endless chain of microtasks', 'const spin = () => Promise.resolve().then(spin);\nspin();\nawait new Promise(() => {});'],
    [
      'a loop in a then getter hit while a tool answer is delivered',
      'Object.defineProperty(Object.prototype, "then", { get() { for (;;) {} } });\nawait tools.add({ a: 1, b: 1 });',
    ],
  ];
  for (const [name, code] of loops) {
    it(`stops ${name} at the CPU budget`, async () => {
      const t = await codeHost({ cpuTimeoutMs: 100 });
      expect(errorOf(await t.call('run_code', { code })).code).toBe('PROGRAM_TIMEOUT');
      expect(okOutput(await t.call('run_code', { code: 'return "next run fine";' })).result).toBe('next run fine');
      wellFormed(t);
    });
  }

  const bombs: [string, string][] = [
    ['arrays of arrays', 'const a = []; for (;;) a.push(new Array(100000).fill(1));'],
    ['string doubling', 'let s = "x"; const keep = []; for (;;) { s = s + s; keep.push(s); }'],
    ['a billion-character repeat', 'return "x".repeat(1e9).length;'],
    ['a 1 GB ArrayBuffer', 'return new ArrayBuffer(1e9).byteLength;'],
    ['many 1 MB typed arrays', 'const a = []; for (;;) a.push(new Uint8Array(1 << 20));'],
    ['an object flood', 'const a = []; for (let i = 0; ; i++) a.push({ i, s: "k" + i });'],
    ['a Map of ten million entries', 'const m = new Map(); for (let i = 0; i < 1e7; i++) m.set(i, { i }); return m.size;'],
  ];
  for (const [name, code] of bombs) {
    it(`ends ${name} with a bounded error, host memory bounded and the next run clean`, async () => {
      const t = await codeHost({ memoryLimitBytes: 32 * MiB, cpuTimeoutMs: 10_000 });
      const before = process.memoryUsage().rss;
      const error = errorOf(await t.call('run_code', { code }));
      // Either the cap stopped it, or QuickJS refused the allocation itself (a RangeError or "string too long").
      expect(['PROGRAM_OUT_OF_MEMORY', 'PROGRAM_THREW']).toContain(error.code);
      if (error.code === 'PROGRAM_THREW') expect(error.message).toMatch(/memory|too long|invalid array buffer length/i);
      // The sandbox cannot hold more than its 32 MiB: the host grows by far less than the guest tried to allocate.
      expect(process.memoryUsage().rss - before).toBeLessThan(400 * MiB);
      expect(okOutput(await t.call('run_code', { code: 'return [1, 2, 3].length;' })).result).toBe(3);
      wellFormed(t);
    });
  }

  it('turns deep recursion into a guest stack overflow, not a host crash', async () => {
    const t = await codeHost();
    const error = errorOf(await t.call('run_code', { code: 'const f = (n) => f(n + 1) + 1;\nreturn f(0);' }));
    expect(error.code).toBe('PROGRAM_THREW');
    expect(error.data.error).toMatchObject({ name: 'InternalError', message: 'stack overflow' });
    const caught = 'const f = (n) => f(n + 1) + 1;\ntry { f(0); } catch (e) { return e.message; }';
    expect(okOutput(await t.call('run_code', { code: caught })).result).toBe('stack overflow');
  });

  it('ends mutual recursion through async functions inside the guest', async () => {
    const t = await codeHost({ cpuTimeoutMs: 2000 });
    const code =
      'async function ping(n) { return await pong(n + 1); }\nasync function pong(n) { return await ping(n + 1); }\nreturn await ping(0);';
    const error = errorOf(await t.call('run_code', { code }));
    expect(['PROGRAM_THREW', 'PROGRAM_OUT_OF_MEMORY', 'PROGRAM_TIMEOUT']).toContain(error.code);
    expect(okOutput(await t.call('run_code', { code: 'return "alive";' })).result).toBe('alive');
  });
});

describe('run_code threats: output and values', () => {
  it('caps console spam with a marker and keeps the run going', async () => {
    const t = await codeHost({ maxLogChars: 1000 });
    const output = okOutput(await t.call('run_code', { code: 'for (let i = 0; i < 100000; i++) console.log("line", i);\nreturn "done";' }));
    expect(output.result).toBe('done');
    expect(output.logs.startsWith('line 0\nline 1\n')).toBe(true);
    expect(output.logs).toMatch(/…\[console output truncated at 1000 characters; \d+ more line\(s\) dropped\]$/);
    expect(output.logs.length).toBeLessThan(1200);
    expect(output.truncated).toEqual(['logs']);
  });

  it('cuts a huge return value with a marker', async () => {
    const t = await codeHost({ maxResultChars: 1000 });
    const output = okOutput(await t.call('run_code', { code: 'return "y".repeat(5 * 1024 * 1024);' }));
    expect(typeof output.result).toBe('string');
    expect(output.result).toMatch(/^"y{999}…\[result truncated: 5242882 characters of JSON, showing the first 1000\]$/);
    expect(output.truncated).toEqual(['result']);
  });

  it('caps a huge error message', async () => {
    const t = await codeHost({ maxErrorChars: 100 });
    const error = errorOf(await t.call('run_code', { code: 'throw new Error("e".repeat(1000000));' }));
    expect(error.data.error?.message).toHaveLength(100);
  });

  it('reports cyclic results, and returns NUL and lone surrogates intact', async () => {
    const t = await codeHost();
    const cyclic = errorOf(await t.call('run_code', { code: 'const a = [1]; a.push(a); return a;' }));
    expect(cyclic.code).toBe('RESULT_NOT_JSON');
    const output = okOutput(await t.call('run_code', { code: 'const s = "a\\u0000b\\ud800c";\nconsole.log(s);\nreturn [s, s.length];' }));
    expect(output.result).toEqual(['a\u0000b\ud800c', 5]);
    expect(output.logs).toBe('a\u0000b\ud800c');
  });

  it('rejects a call to an undeclared tool as a plain TypeError', async () => {
    const t = await codeHost();
    const error = errorOf(await t.call('run_code', { code: 'await tools.nope({});' }));
    expect(error.code).toBe('PROGRAM_THREW');
    expect(error.data.error?.name).toBe('TypeError');
    expect(t.events().filter((e) => e.type === 'tool/call')).toHaveLength(1);
  });

  it('encodes arguments as JSON: functions and symbols drop, throwing getters and BigInts are handled', async () => {
    const t = await codeHost();
    const code = [
      'const out = [];',
      'out.push(await tools.echo({ value: { f() {}, s: Symbol("x"), n: 1, list: [() => 1] } }));',
      'out.push(await tools.echo({ value: 12345678901234567890n }));',
      'out.push(await tools.echo({ value: new Proxy({ a: 1 }, {}) }));',
      'try { await tools.echo({ value: { get boom() { throw new Error("getter threw"); } } }); } catch (e) { out.push([e.code, e.message]); }',
      'try { await tools.echo(() => 1); } catch (e) { out.push(e.code); }',
      'try { await tools.echo(Symbol("s")); } catch (e) { out.push(e.code); }',
      'return out;',
    ].join('\n');
    expect(okOutput(await t.call('run_code', { code })).result).toEqual([
      { n: 1, list: [null] },
      '12345678901234567890',
      { a: 1 },
      ['ARGS_NOT_JSON', 'tools.echo: the arguments are not JSON: getter threw'],
      'INVALID_ARGS',
      'INVALID_ARGS',
    ]);
    wellFormed(t);
  });
});

describe('run_code threats: resource hygiene', () => {
  it('runs 300 programs in a row with flat memory', async () => {
    const t = await codeHost({}, { retainEvents: 100 });
    const code = 'const r = await tools.add({ a: 1, b: 2 });\nconst junk = new Array(10000).fill("x");\nreturn r.sum + junk.length;';
    for (let i = 0; i < 50; i++) await t.call('run_code', { code });
    globalThis.gc?.();
    const before = process.memoryUsage();
    for (let i = 0; i < 300; i++) {
      const outcome = await t.call('run_code', { code });
      if (outcome.status !== 'ok') throw new Error(`run ${i}: ${JSON.stringify(outcome)}`);
    }
    globalThis.gc?.();
    const after = process.memoryUsage();
    // Each run had a 16 MiB instance of its own; a leak of instances would show as gigabytes (300 x 16 MiB).
    expect(after.rss - before.rss).toBeLessThan(300 * MiB);
    expect(after.external + after.arrayBuffers - (before.external + before.arrayBuffers)).toBeLessThan(300 * MiB);
  }, 120_000);
});

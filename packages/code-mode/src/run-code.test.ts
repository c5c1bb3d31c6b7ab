import { definePlugin, z } from '@deepseek-ai/dsh-core';
import { callOf, scriptedApproval, stepOf } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { codeHost, errorOf, okOutput, wellFormed } from './fixtures/kit.js';

describe('run_code: programs and their results', () => {
  it('returns the value, the console output and a summary of the calls', async () => {
    const t = await codeHost();
    const outcome = await t.call(
      'run_code',
      { code: 'const r = await tools.add({ a: 2, b: 3 });\nconsole.log("sum is", r.sum, { r });\nreturn { doubled: r.sum * 2 };' },
      'run-1',
    );
    expect(okOutput(outcome)).toEqual({
      result: { doubled: 10 },
      logs: 'sum is 5 {"r":{"sum":5}}',
      calls: [{ id: 'run-1:code:0', name: 'add', status: 'ok' }],
    });
    wellFormed(t);
  });

  it('gives null for a program that returns nothing, and a BigInt as its decimal string', async () => {
    const t = await codeHost();
    expect(okOutput(await t.call('run_code', { code: 'await tools.add({ a: 1, b: 1 });' })).result).toBeNull();
    expect(okOutput(await t.call('run_code', { code: 'return { n: 2n ** 70n }' })).result).toEqual({ n: '1180591620717411303424' });
    expect(okOutput(await t.call('run_code', { code: 'return undefined' })).result).toBeNull();
  });

  it('strips TypeScript syntax and tolerates a markdown fence', async () => {
    const t = await codeHost();
    const code = [
      '```typescript',
      'interface Pair { a: number; b: number }',
      'enum Kind { One = 1, Two }',
      'const pair: Pair = { a: Kind.Two, b: 40 } satisfies Pair;',
      'const r = (await tools.add(pair)) as { sum: number };',
      'return r!.sum;',
      '```',
    ].join('\n');
    expect(okOutput(await t.call('run_code', { code })).result).toBe(42);
  });

  it('reports a syntax error with its line and column in the model’s code', async () => {
    const t = await codeHost();
    const error = errorOf(await t.call('run_code', { code: 'const a = 1;\nconst b = a +;\nreturn b;' }));
    expect(error.code).toBe('CODE_SYNTAX');
    expect(error.message).toContain('line 2, column 14');
    expect(error.data.error).toMatchObject({ name: 'SyntaxError', line: 2, column: 14 });
    expect(error.data.calls).toEqual([]);
  });

  it('reports an uncaught throw with its position, and keeps the output printed before it', async () => {
    const t = await codeHost();
    const error = errorOf(await t.call('run_code', { code: 'console.log("before");\nawait tools.add({ a: 1, b: 1 });\nnull.x;' }));
    expect(error.code).toBe('PROGRAM_THREW');
    expect(error.message).toMatch(/^the program threw TypeError: .* \(line 3, column \d+\)$/);
    expect(error.data.logs).toBe('before');
    expect(error.data.calls).toHaveLength(1);
    expect(error.data.error?.stack).toContain('program.js:3');
  });

  it('refuses a program longer than maxCodeChars before it runs', async () => {
    const t = await codeHost({ maxCodeChars: 20 });
    const outcome = await t.call('run_code', { code: 'return "this program is too long";' });
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS' } });
  });

  it('reports a program that waits on a promise nothing can settle', async () => {
    const t = await codeHost();
    const error = errorOf(await t.call('run_code', { code: 'await new Promise(() => {}); return 1;' }));
    expect(error.code).toBe('PROGRAM_STALLED');
  });
});

describe('run_code: calls from the program', () => {
  it('dispatches each call through the pipeline with a dispatch event, the outer token and a deterministic id', async () => {
    const t = await codeHost();
    await t.call('run_code', { code: 'await tools.add({ a: 1, b: 2 }); await tools.echo({ value: "x" });' }, 'outer');
    const events = wellFormed(t);
    const outerCall = events.find((e) => e.type === 'tool/call' && e.call === 'outer');
    const token = outerCall?.token;
    expect(token).toBeDefined();
    const sub = events.filter((e) => e.call !== undefined && e.call !== 'outer');
    expect(sub.map((e) => [e.type, e.call, e.token])).toEqual([
      ['tool/call', 'outer:code:0', token],
      ['tool/result', 'outer:code:0', token],
      ['tool/call', 'outer:code:1', token],
      ['tool/result', 'outer:code:1', token],
    ]);
    const dispatches = events.filter((e) => e.type === 'tool/code-dispatch');
    expect(dispatches.map((e) => [e.call, e.token, e.data])).toEqual([
      ['outer', token, { subCall: 'outer:code:0', name: 'add', index: 0 }],
      ['outer', token, { subCall: 'outer:code:0', name: 'add', index: 0, status: 'ok', droppedContext: 0 }],
      ['outer', token, { subCall: 'outer:code:1', name: 'echo', index: 1 }],
      ['outer', token, { subCall: 'outer:code:1', name: 'echo', index: 1, status: 'ok', droppedContext: 0 }],
    ]);
    // Each dispatch event comes before its sub-call's tool/call; the settled one after its tool/result.
    for (const d of dispatches.filter((e) => !('status' in e.data))) {
      const subCall = (d.data as { subCall: string }).subCall;
      const call = events.find((e) => e.type === 'tool/call' && e.call === subCall);
      expect(call?.seq).toBeGreaterThan(d.seq);
      expect(call?.data).toMatchObject({ parent: 'outer' });
    }
    expect(t.ui.cards.filter((c) => c.call.id.startsWith('outer:code:')).map((c) => c.kind)).toEqual([
      'pending',
      'completed',
      'pending',
      'completed',
    ]);
  });

  it('logs each settled sub-call with its status and how much of its context was dropped', async () => {
    const t = await codeHost();
    t.host.hooks.postExecute.tap('noter', (state) => (state.call.name === 'add' ? { addContext: 'first note' } : undefined));
    t.host.hooks.postExecute.tap('second-noter', (state) => (state.call.name === 'add' ? { addContext: 'second note' } : undefined));
    t.host.hooks.preExecute.tap('no-echo', (state) => (state.call.name === 'echo' ? { decision: 'deny', reason: 'no' } : undefined));
    const code = 'await tools.add({ a: 1, b: 2 }); try { await tools.echo({ value: "x" }); } catch {}';
    await t.call('run_code', { code }, 'outer');
    const settled = wellFormed(t).filter((e) => e.type === 'tool/code-dispatch' && 'status' in e.data);
    expect(settled.map((e) => e.data)).toEqual([
      { subCall: 'outer:code:0', name: 'add', index: 0, status: 'ok', droppedContext: 2 },
      { subCall: 'outer:code:1', name: 'echo', index: 1, status: 'denied', droppedContext: 0 },
    ]);
  });

  it('runs calls one at a time in the order the program made them, even under Promise.all', async () => {
    const t = await codeHost();
    const outcome = await t.call('run_code', {
      code: 'return await Promise.all(["a", "b", "c", "d", "e"].map((label) => tools.step({ label })));',
    });
    expect(okOutput(outcome).result).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(t.probe.started).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(t.probe.maxActive).toBe(1);
    wellFormed(t);
  });

  it('rejects a call a guard denies with the reason, and the program can catch it and go on', async () => {
    const t = await codeHost();
    t.host.guards.register({
      id: 'no-secrets',
      check: (input) => (input.call.name === 'echo' ? { deny: 'echo is off limits' } : 'abstain'),
    });
    const code = [
      'try { await tools.echo({ value: 1 }); } catch (e) {',
      '  console.log(e instanceof ToolCallError, e.name, e.tool, e.status, e.code, e.message);',
      '}',
      'return (await tools.add({ a: 1, b: 1 })).sum;',
    ].join('\n');
    const output = okOutput(await t.call('run_code', { code }, 'g'));
    expect(output.result).toBe(2);
    expect(output.logs).toBe('true ToolCallError echo denied GUARD_DENIED echo is off limits');
    expect(output.calls).toEqual([
      { id: 'g:code:0', name: 'echo', status: 'denied', code: 'GUARD_DENIED' },
      { id: 'g:code:1', name: 'add', status: 'ok' },
    ]);
    wellFormed(t);
  });

  it('keeps the queue moving when a call in the middle of a Promise.all is denied', async () => {
    const t = await codeHost();
    t.host.guards.register({ id: 'no-c', check: (input) => (input.args.label === 'c' ? { deny: 'not c' } : 'abstain') });
    const code =
      'const all = await Promise.allSettled(["a", "b", "c", "d"].map((label) => tools.step({ label })));\nreturn all.map((r) => r.status === "fulfilled" ? r.value : r.reason.message);';
    expect(okOutput(await t.call('run_code', { code })).result).toEqual(['a', 'b', 'not c', 'd']);
    expect(t.probe.started).toEqual(['a', 'b', 'd']);
  });

  it('fails the run with the denial when the program does not catch it', async () => {
    const t = await codeHost();
    t.host.guards.register({ id: 'deny-add', check: (input) => (input.call.name === 'add' ? { deny: 'nothing today' } : 'abstain') });
    const error = errorOf(await t.call('run_code', { code: 'await tools.add({ a: 1, b: 1 });' }));
    expect(error.code).toBe('PROGRAM_THREW');
    expect(error.message).toContain('ToolCallError: nothing today');
    expect(error.data.error?.code).toBe('GUARD_DENIED');
  });

  it('rejects with the code and message of an error outcome, and of invalid arguments', async () => {
    const t = await codeHost();
    const code = [
      'const seen = [];',
      'for (const call of [() => tools.fail({}), () => tools.add({ a: "one" }), () => tools.add(5)]) {',
      '  try { await call(); } catch (e) { seen.push([e.status, e.code, e.message]); }',
      '}',
      'return seen;',
    ].join('\n');
    const [failed, invalid, notObject] = okOutput(await t.call('run_code', { code })).result as string[][];
    expect(failed).toEqual(['error', 'NOPE', 'it failed on purpose']);
    expect(invalid?.slice(0, 2)).toEqual(['error', 'INVALID_ARGS']);
    expect(invalid?.[2]).toContain('a');
    expect(notObject?.slice(0, 2)).toEqual(['error', 'INVALID_ARGS']);
  });

  it('rejects with the reason of a block by a post-execute tap', async () => {
    const t = await codeHost();
    t.host.hooks.postExecute.tap('censor', (state) => (state.call.name === 'echo' ? { block: 'echo output withheld' } : undefined));
    const code = 'try { await tools.echo({ value: 1 }); } catch (e) { return [e.status, e.code, e.message]; }';
    expect(okOutput(await t.call('run_code', { code })).result).toEqual(['blocked', 'POST_EXECUTE_BLOCKED', 'echo output withheld']);
  });

  it('drops the additional context of sub-calls: the step gets no context message from them', async () => {
    const t = await codeHost();
    t.host.hooks.postExecute.tap('note', (state) => (state.call.name === 'add' ? { addContext: 'remember the sum' } : undefined));
    const result = await t.host.runStep(stepOf(callOf('run_code', { code: 'return (await tools.add({ a: 1, b: 1 })).sum;' })));
    expect(result.results[0]?.outcome).toMatchObject({ status: 'ok', output: { result: 2 } });
    expect(result.context).toBeUndefined();
    expect(t.events().some((e) => e.type === 'context/message')).toBe(false);
  });

  it('asks for approval of each sub-call in order when the host asks, and a rejection rejects the call', async () => {
    const approval = scriptedApproval((request) =>
      request.call.name === 'run_code' || request.args.b === 1 ? 'allowed-once' : 'rejected',
    );
    const t = await codeHost({}, { defaultDecision: 'ask', approval: approval.provider });
    const code =
      'const a = await tools.add({ a: 1, b: 1 });\ntry { await tools.add({ a: 1, b: 2 }); } catch (e) { return [a.sum, e.status, e.code]; }';
    expect(okOutput(await t.call('run_code', { code }, 'ap')).result).toEqual([2, 'denied', 'APPROVAL_REJECTED']);
    expect(approval.requests.map((r) => r.call.id)).toEqual(['ap', 'ap:code:0', 'ap:code:1']);
    wellFormed(t);
  });

  it('exposes only the configured tools: others are undefined and never reach the pipeline', async () => {
    const t = await codeHost({ tools: ['add'] });
    const code = 'return [typeof tools.add, typeof tools.echo, typeof tools.run_code, Object.keys(tools)];';
    expect(okOutput(await t.call('run_code', { code })).result).toEqual(['function', 'undefined', 'undefined', ['add']]);
    const error = errorOf(await t.call('run_code', { code: 'await tools.echo({ value: 1 });' }));
    expect(error.message).toContain('TypeError');
    expect(
      t
        .events()
        .filter((e) => e.type === 'tool/call')
        .map((e) => e.data.name),
    ).toEqual(['run_code', 'run_code']);
  });

  it('refuses run_code reached through a tool that a program calls', async () => {
    const t = await codeHost({}, {}, [indirectPlugin()]);
    const output = okOutput(await t.call('run_code', { code: 'return await tools.indirect({});' }));
    expect(output.result).toMatchObject({ status: 'error', error: { code: 'RECURSIVE_RUN' } });
    wellFormed(t);
  });
});

function indirectPlugin() {
  return definePlugin({
    name: 'indirect',
    version: '1.0.0',
    register(host) {
      host.tools.register({
        name: 'indirect',
        description: 'Calls run_code from inside a tool.',
        input: z.object({}),
        execute: async (_args, ctx) => ctx.tools.execute({ id: `${ctx.call.id}:inner`, name: 'run_code', args: { code: 'return 1' } }),
      });
    },
  });
}

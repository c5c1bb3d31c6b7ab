import type { AnySessionEvent, EventSink } from '@deepseek-ai/dsh-core';
import { callOf, stepOf } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { codeHost, errorOf, okOutput, wellFormed } from './fixtures/kit.js';

function resultOf(events: readonly AnySessionEvent[], call: string) {
  return events.find((e) => e.type === 'tool/result' && e.call === call)?.data as { outcome?: { status: string } } | undefined;
}

describe('run_code: the end of a run', () => {
  it('cancels calls the program never awaited when it returns, and reports them', async () => {
    const t = await codeHost();
    const code = 'tools.slow({ ms: 600000, label: "first" });\ntools.slow({ ms: 600000, label: "second" });\nreturn "returned";';
    const output = okOutput(await t.call('run_code', { code }, 'ff'));
    expect(output.result).toBe('returned');
    const [first, second] = output.calls;
    // The first had entered the pipeline (its signal was aborted) or was stopped just before; neither ran to the end.
    expect(first).toMatchObject({ id: 'ff:code:0', name: 'slow' });
    expect(['cancelled', 'error']).toContain(first?.status);
    expect(first?.code).toBe('CALL_CANCELLED');
    expect(second).toEqual({ id: 'ff:code:1', name: 'slow', status: 'cancelled', code: 'CALL_CANCELLED' });
    const events = wellFormed(t);
    expect(events.filter((e) => e.type === 'code-mode/call-cancelled').map((e) => e.data)).toContainEqual({
      subCall: 'ff:code:1',
      name: 'slow',
      index: 1,
      reason: 'program-ended',
    });
    expect(events.some((e) => e.type === 'tool/call' && e.call === 'ff:code:1')).toBe(false);
    expect(t.probe.started.filter((label) => !t.probe.aborted.includes(label))).toEqual([]);
  });

  it('rejects a call made after the program ended, without running it', async () => {
    const t = await codeHost();
    const code = 'Promise.resolve().then(() => null).then(() => null).then(() => tools.echo({ value: "late" }));\nreturn 1;';
    const output = okOutput(await t.call('run_code', { code }, 'late'));
    expect(output.result).toBe(1);
    expect(output.calls).toEqual([{ id: 'late:code:0', name: 'echo', status: 'cancelled', code: 'CALL_CANCELLED' }]);
    const events = wellFormed(t);
    expect(events.filter((e) => e.type === 'code-mode/call-cancelled').map((e) => e.data)).toEqual([
      { subCall: 'late:code:0', name: 'echo', index: 0, reason: 'after-end' },
    ]);
    expect(events.filter((e) => e.type === 'tool/call').map((e) => e.call)).toEqual(['late']);
  });

  it('stops at the wall-clock deadline while a slow tool runs, aborting that tool through its signal', async () => {
    // On a loaded machine the guest may not reach its call by a short deadline: the deadline then
    // grows until the tool was started before it fired (decided by events, not speed).
    let deadline = 300;
    let t = await codeHost({ timeoutMs: deadline });
    let error = errorOf(await t.call('run_code', { code: 'await tools.slow({ ms: 600000, label: "stuck" }); return 1;' }, 'wall'));
    while (!t.probe.started.includes('stuck') && deadline < 20_000) {
      deadline *= 4;
      t = await codeHost({ timeoutMs: deadline });
      error = errorOf(await t.call('run_code', { code: 'await tools.slow({ ms: 600000, label: "stuck" }); return 1;' }, 'wall'));
    }
    expect(error.code).toBe('PROGRAM_TIMEOUT');
    expect(error.message).toContain(`did not finish within ${deadline} ms`);
    expect(t.probe.aborted).toEqual(['stuck']);
    expect(error.data.calls).toEqual([{ id: 'wall:code:0', name: 'slow', status: 'error', code: 'CALL_CANCELLED' }]);
    expect(resultOf(wellFormed(t), 'wall:code:0')?.outcome?.status).toBe('error');
  });

  it('reports the calls a program made before its CPU budget ran out as cancelled, without running them', async () => {
    const t = await codeHost({ cpuTimeoutMs: 150 });
    const code = 'tools.slow({ ms: 600000, label: "a" });\ntools.slow({ ms: 600000, label: "b" });\nfor (;;) {}';
    const error = errorOf(await t.call('run_code', { code }, 'cpu'));
    expect(error.code).toBe('PROGRAM_TIMEOUT');
    expect(error.data.calls).toEqual([
      { id: 'cpu:code:0', name: 'slow', status: 'cancelled', code: 'CALL_CANCELLED' },
      { id: 'cpu:code:1', name: 'slow', status: 'cancelled', code: 'CALL_CANCELLED' },
    ]);
    const events = wellFormed(t);
    expect(events.filter((e) => e.type === 'code-mode/call-cancelled').map((e) => e.data)).toEqual([
      { subCall: 'cpu:code:0', name: 'slow', index: 0, reason: 'run-stopped' },
      { subCall: 'cpu:code:1', name: 'slow', index: 1, reason: 'run-stopped' },
    ]);
    expect(t.probe.started).toEqual([]);
  });

  it('stops a computing program at its CPU budget', async () => {
    const t = await codeHost({ cpuTimeoutMs: 150 });
    const error = errorOf(await t.call('run_code', { code: 'console.log("spinning"); for (;;) {}' }));
    expect(error.code).toBe('PROGRAM_TIMEOUT');
    expect(error.message).toContain('computed for more than 150 ms');
    expect(error.data.logs).toBe('spinning');
  });

  it('aborts the run and its running sub-call when the step is cancelled', async () => {
    const t = await codeHost();
    const controller = new AbortController();
    const started = new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (t.probe.started.includes('hang')) {
          clearInterval(timer);
          resolve();
        }
      }, 5);
    });
    const step = t.host.runStep(stepOf(callOf('run_code', { code: 'await tools.slow({ ms: 600000, label: "hang" });' }, 'ab')), {
      signal: controller.signal,
    });
    await started;
    controller.abort();
    const { results } = await step;
    expect(results[0]?.outcome).toMatchObject({ status: 'error', error: { code: 'ABORTED' } });
    expect(t.probe.aborted).toEqual(['hang']);
    wellFormed(t);
  });

  it('refuses calls beyond maxCalls', async () => {
    const t = await codeHost({ maxCalls: 3 });
    const code =
      'const out = [];\nfor (let i = 0; i < 5; i++) { try { out.push((await tools.add({ a: i, b: 0 })).sum); } catch (e) { out.push(e.code); } }\nreturn out;';
    const output = okOutput(await t.call('run_code', { code }));
    expect(output.result).toEqual([0, 1, 2, 'TOO_MANY_CALLS', 'TOO_MANY_CALLS']);
    expect(output.calls.map((c) => c.status)).toEqual(['ok', 'ok', 'ok', 'refused', 'refused']);
  });

  it('lists refused calls by name while the output can list them, and counts the rest', async () => {
    const t = await codeHost({ maxCalls: 3 });
    // Awaited and not: refusals past the listed hundred cross as a count, in one entry or over many.
    const code =
      'let refused = 0;\nfor (let i = 0; i < 150; i++) { try { await tools.add({ a: i, b: 0 }); } catch (e) { refused++; } }\n' +
      'for (let i = 0; i < 100; i++) tools.echo({ value: i }).catch(() => refused++);\nawait Promise.resolve();\nreturn refused;';
    const output = okOutput(await t.call('run_code', { code }, 'r'));
    expect(output.result).toBe(247);
    expect(output.calls).toHaveLength(100);
    expect(output.calls.slice(0, 4).map((c) => `${c.name}:${c.status}`)).toEqual(['add:ok', 'add:ok', 'add:ok', 'add:refused']);
    expect(output.calls[99]).toEqual({ id: 'r:code:99', name: 'add', status: 'refused', code: 'TOO_MANY_CALLS' });
    expect(output.callsOmitted).toBe(150);
    wellFormed(t);
  });

  it('withholds a tool output longer than maxToolOutputChars from the program', async () => {
    const t = await codeHost({ maxToolOutputChars: 500 });
    const code =
      'const small = await tools.big({ n: 10 });\ntry { await tools.big({ n: 1000 }); } catch (e) { return [small.length, e.code, e.message]; }';
    const [length, code_, message] = okOutput(await t.call('run_code', { code })).result as [number, string, string];
    expect([length, code_]).toEqual([10, 'OUTPUT_TOO_LARGE']);
    expect(message).toContain('1002 characters');
  });

  it('refuses arguments longer than maxArgsChars before they reach the pipeline', async () => {
    const t = await codeHost({ maxArgsChars: 1000 });
    const code = 'try { await tools.echo({ value: "x".repeat(5000) }); } catch (e) { return [e.code, e.status]; }';
    expect(okOutput(await t.call('run_code', { code })).result).toEqual(['ARGS_TOO_LARGE', 'error']);
    expect(t.events().filter((e) => e.type === 'tool/call')).toHaveLength(1);
  });

  it('does not run a call whose dispatch event the session log cannot record', async () => {
    const sink: EventSink = {
      append(event) {
        if (event.type === 'tool/code-dispatch') throw new Error('disk full');
      },
    };
    const t = await codeHost({}, { sink });
    const code = 'try { await tools.step({ label: "never" }); } catch (e) { return [e.code, e.message]; }';
    const [code_, message] = okOutput(await t.call('run_code', { code })).result as [string, string];
    expect(code_).toBe('DISPATCH_NOT_LOGGED');
    expect(message).toContain('disk full');
    expect(t.probe.started).toEqual([]);
  });
});

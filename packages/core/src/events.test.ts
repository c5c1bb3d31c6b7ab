import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeOf } from './__fixtures__/errors.js';
import { echoTool } from './__fixtures__/tools.js';
import { type AnySessionEvent, createHost, defineTool, type EventSink, jsonlSink, loadSessionLog, z } from './index.js';
import { createTestHost, logProblems } from './testing/index.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'dsh-events-'));

describe('session events', () => {
  it('number events with a seq that rises by one, in the contract envelope', async () => {
    const t = await createTestHost({ session: 's-1' });
    t.host.tools.register(echoTool());
    await t.host.runStep({
      calls: [
        { id: 'a', name: 'echo', args: { text: 'x' } },
        { id: 'b', name: 'nope', args: {} },
      ],
    });
    const events = t.host.events.list();
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events[0]).toMatchObject({ session: 's-1', type: 'step/start', data: { calls: ['a', 'b'] } });
    expect(events[1]).toMatchObject({ session: 's-1', type: 'tool/call', call: 'a', data: { name: 'echo', args: { text: 'x' } } });
    expect(typeof events[1]?.token).toBe('string');
    expect(Number.isNaN(Date.parse(events[1]?.at ?? ''))).toBe(false);
    expect(events[5]).toMatchObject({ type: 'step/end', data: { startSeq: 1, end: 'completed', statuses: ['ok', 'error'] } });
    expect(logProblems(events)).toEqual([]);
  });

  it('record the arguments exactly as the model sent them', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    await t.call('echo', '{"text":"raw"}');
    expect(t.host.events.list()[1]?.data).toEqual({ name: 'echo', args: '{"text":"raw"}' });
  });

  it('let a tool emit a registered event type, checked against its schema', async () => {
    const t = await createTestHost();
    t.host.tools.register(
      defineTool({
        name: 'todo',
        description: 'Writes todos.',
        input: z.object({ bad: z.boolean() }),
        execute: async (args, ctx) => {
          await ctx.emit('todo/write', { todos: [{ content: 'x', status: args.bad ? ('nope' as 'pending') : 'pending' }] });
          return 'ok';
        },
      }),
    );
    expect(await t.call('todo', { bad: false })).toMatchObject({ status: 'ok' });
    expect(t.host.events.list().find((e) => e.type === 'todo/write')).toMatchObject({ data: { todos: [{ content: 'x' }] } });
    expect(await t.call('todo', { bad: true })).toMatchObject({ status: 'error', error: { code: 'INVALID_EVENT_DATA' } });
  });

  it('let a plugin define its own type under its own prefix and emit it from a tap', async () => {
    const t = await createTestHost();
    t.host.events.define('audit/seen', z.object({ what: z.string() }));
    t.host.tools.register(echoTool());
    t.host.hooks.preExecute.tap('auditor', async (state) => {
      await t.host.events.emit('audit/seen' as never, { what: state.call.name } as never, state.call);
      return undefined;
    });
    await t.call('echo', { text: 'x' }, 'e1');
    expect(t.host.events.list().map((e) => `${e.type}:${e.call}`)).toEqual([
      'step/start:undefined',
      'tool/call:e1',
      'audit/seen:e1',
      'tool/result:e1',
      'step/end:undefined',
    ]);
    expect(codeOf(() => t.host.events.define('audit/seen', z.object({})))).toBe('DUPLICATE_EVENT_TYPE');
    expect(codeOf(() => t.host.events.define('tool/mine', z.object({})))).toBe('INVALID_OPTIONS');
    expect(codeOf(() => t.host.events.define('step/mine', z.object({})))).toBe('INVALID_OPTIONS');
    expect(codeOf(() => t.host.events.define('Bad Name', z.object({})))).toBe('INVALID_OPTIONS');
    await expect(t.host.events.emit('nobody/knows' as never, {} as never)).rejects.toMatchObject({ code: 'UNKNOWN_EVENT_TYPE' });
  });

  it('keep only the configured number of events in memory, without breaking seq', async () => {
    const t = await createTestHost({ retainEvents: 3 });
    t.host.tools.register(echoTool());
    for (let i = 0; i < 5; i++) await t.call('echo', { text: `${i}` });
    expect(t.host.events.list().map((e) => e.seq)).toEqual([18, 19, 20]);
  });

  it('tell subscribers synchronously, and survive a subscriber that throws', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    const types: string[] = [];
    const stop = t.host.events.subscribe((e) => types.push(e.type));
    t.host.events.subscribe(() => {
      throw new Error('bad subscriber');
    });
    await t.call('echo', { text: 'x' });
    stop();
    await t.call('echo', { text: 'y' });
    expect(types).toEqual(['step/start', 'tool/call', 'tool/result', 'step/end']);
    expect(t.host.diagnostics.list().filter((d) => d.code === 'SUBSCRIBER_FAILED')).toHaveLength(8);
  });
});

describe('the JSONL sink', () => {
  it('appends one lossless line per event and flushes before runStep resolves', async () => {
    const path = join(scratch(), 'session.jsonl');
    const host = createHost({ defaultDecision: 'allow', sink: jsonlSink(path) });
    host.tools.register(defineTool({ name: 'big', description: 'Big number.', input: z.object({}), execute: () => ({ n: 2n ** 80n }) }));
    await host.runStep({ calls: [{ id: 'a', name: 'big', args: '{}' }] });
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toContain('"n":1208925819614629174706176');
    expect(lines[3]).toContain('"type":"step/end"');
    const loaded = await loadSessionLog(path);
    expect(loaded.events).toHaveLength(4);
    expect(loaded.unknownOutcomes).toEqual([]);
    await host.close();
    await expect(host.events.sink?.append(host.events.list()[0] as AnySessionEvent)).rejects.toThrow('closed');
  });

  it('never runs a body before its tool/call event reached the sink', async () => {
    const written: string[] = [];
    const order: string[] = [];
    const slowSink: EventSink = {
      append: (event) =>
        new Promise((resolve) =>
          setTimeout(() => {
            written.push(`${event.type}:${event.call}`);
            order.push(`sink:${event.type}`);
            resolve();
          }, 5),
        ),
    };
    const host = createHost({ defaultDecision: 'allow', sink: slowSink });
    host.tools.register(
      defineTool({
        name: 'probe',
        description: 'Records when it runs.',
        input: z.object({}),
        execute: () => {
          order.push('body');
          return null;
        },
      }),
    );
    await host.runStep({ calls: [{ id: 'a', name: 'probe', args: {} }] });
    expect(order.indexOf('sink:tool/call')).toBeLessThan(order.indexOf('body'));
  });

  it('does not run the body when the sink cannot take the tool/call event, and still returns one result', async () => {
    let calls = 0;
    const failing: EventSink = {
      append: async () => {
        calls += 1;
        throw new Error('disk full');
      },
    };
    const runs: string[] = [];
    const host = createHost({ defaultDecision: 'allow', sink: failing });
    host.tools.register(echoTool(runs));
    const { results } = await host.runStep({ calls: [{ id: 'a', name: 'echo', args: { text: 'x' } }] });
    expect(results[0]?.outcome).toMatchObject({ status: 'error', stage: 'sink', error: { code: 'SINK_FAILED' } });
    expect(runs).toEqual([]);
    // step/start, tool/call, tool/result, step/end: each was tried, and each failure recorded.
    expect(calls).toBe(4);
    expect(logProblems(host.events.list())).toEqual([]);
    expect(host.diagnostics.list().map((d) => d.code)).toEqual(['SINK_FAILED', 'SINK_FAILED', 'SINK_FAILED', 'SINK_FAILED']);
  });

  it('keeps the outcome when only the tool/result write fails, or the sink hangs or throws', async () => {
    for (const failure of ['reject', 'throw', 'hang'] as const) {
      let n = 0;
      const sink: EventSink = {
        append: () => {
          n += 1;
          // step/start and tool/call are written; the tool/result and step/end fail.
          if (n <= 2) return undefined;
          if (failure === 'throw') throw new Error('sync failure');
          return failure === 'reject' ? Promise.reject(new Error('late failure')) : new Promise<void>(() => undefined);
        },
        flush: () => (failure === 'hang' ? new Promise<void>(() => undefined) : Promise.reject(new Error('flush failed'))),
      };
      const runs: string[] = [];
      const host = createHost({ defaultDecision: 'allow', sink, sinkTimeoutMs: 20 });
      host.tools.register(echoTool(runs));
      const { results } = await host.runStep({ calls: [{ id: 'a', name: 'echo', args: { text: 'x' } }] });
      expect(results[0]?.outcome).toMatchObject({ status: 'ok', output: { text: 'x' } });
      expect(host.events.list().map((e) => e.type)).toEqual(['step/start', 'tool/call', 'tool/result', 'step/end']);
      expect(host.diagnostics.list().some((d) => d.code === 'SINK_FAILED')).toBe(true);
    }
  });
});

describe('loadSessionLog', () => {
  it('drops a torn last line and gives calls without a result a TOOL_OUTCOME_UNKNOWN result', async () => {
    const path = join(scratch(), 'crash.jsonl');
    const host = createHost({ defaultDecision: 'allow', sink: jsonlSink(path), session: 'crashy' });
    host.tools.register(echoTool());
    await host.runStep({ calls: [{ id: 'done', name: 'echo', args: { text: 'x' } }] });
    await host.close();
    // The finished step logged seq 1 to 4: the crash cut the next step after its step/start and one tool/call.
    const tail = [
      JSON.stringify({ seq: 5, at: new Date().toISOString(), session: 'crashy', type: 'step/start', data: { calls: ['lost'] } }),
      JSON.stringify({
        seq: 6,
        at: new Date().toISOString(),
        session: 'crashy',
        type: 'tool/call',
        call: 'lost',
        token: 't-9',
        data: { name: 'echo', args: {} },
      }),
      '{"seq":7,"at":"2026-',
    ].join('\n');
    writeFileSync(path, readFileSync(path, 'utf8') + tail);
    const loaded = await loadSessionLog(path);
    expect(loaded.droppedTornLine).toBe(true);
    expect(loaded.unknownOutcomes).toEqual(['lost']);
    const last = loaded.events.at(-1);
    expect(last).toMatchObject({
      seq: 7,
      type: 'tool/result',
      call: 'lost',
      token: 't-9',
      data: { name: 'echo', synthetic: true, outcome: { status: 'error', error: { code: 'TOOL_OUTCOME_UNKNOWN' } } },
    });
    // A step the crash cut has no step/end: loadSessionLog makes none up (a resume writes it).
    expect(loaded.events.filter((e) => e.type === 'step/end')).toHaveLength(1);
    expect(logProblems(loaded.events)).toEqual([]);
  });

  it('refuses a log with a bad line in the middle, naming the line', async () => {
    const path = join(scratch(), 'bad.jsonl');
    writeFileSync(path, 'not json\n{"seq":1}\n');
    await expect(loadSessionLog(path)).rejects.toMatchObject({ code: 'INVALID_SESSION_LOG', message: expect.stringContaining(':1:') });
    writeFileSync(path, '{"seq":1}\n{"seq":2}\n');
    await expect(loadSessionLog(path)).rejects.toMatchObject({ code: 'INVALID_SESSION_LOG' });
  });

  it('drops a torn last line that parses but is not an event, and reads an empty log', async () => {
    const dir = scratch();
    const path = join(dir, 'torn.jsonl');
    writeFileSync(path, '{"seq":1,"at":"x","session":"s","type":"tool/call","call":"a","data":{"name":"n","args":{}}}\n12');
    const loaded = await loadSessionLog(path);
    expect(loaded.droppedTornLine).toBe(true);
    expect(loaded.events.map((e) => e.type)).toEqual(['tool/call', 'tool/result']);
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    expect((await loadSessionLog(empty)).events).toEqual([]);
  });
});

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import { type AnySessionEvent, createHost, defineTool, jsonlSink, loadSessionLog, openJsonlSink, resumeSession, z } from './index.js';
import { readSessionJournal } from './session-journal.js';
import { createTestHost, logProblems } from './testing/index.js';

const brief = (events: readonly AnySessionEvent[]) =>
  events.map((e) => (e.type.startsWith('step/') ? `${e.type} ${JSON.stringify(e.data)}` : `${e.type} ${e.call}`));

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-step-events-'));
  dirs.push(dir);
  return dir;
}

describe('step/start and step/end bracket each step in the log (issue 38 item 16)', () => {
  it('logs two steps of 6 and 2 calls as two brackets, ids in the model’s order, each call’s status at the end', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    // Providers number calls per message: the second step reuses the first step's ids.
    await t.host.runStep({ calls: Array.from({ length: 6 }, (_, i) => ({ id: `call_${i}`, name: 'echo', args: { text: `${i}` } })) });
    await t.host.runStep({
      calls: [
        { id: 'call_0', name: 'echo', args: { text: 'x' } },
        { id: 'call_1', name: 'nope', args: {} },
      ],
    });
    const events = t.host.events.list();
    const starts = events.filter((e) => e.type === 'step/start');
    expect(starts.map((e) => e.data)).toEqual([
      { calls: ['call_0', 'call_1', 'call_2', 'call_3', 'call_4', 'call_5'] },
      { calls: ['call_0', 'call_1'] },
    ]);
    expect(events.filter((e) => e.type === 'step/end').map((e) => e.data)).toEqual([
      { startSeq: starts[0]?.seq, end: 'completed', statuses: ['ok', 'ok', 'ok', 'ok', 'ok', 'ok'] },
      { startSeq: starts[1]?.seq, end: 'completed', statuses: ['ok', 'error'] },
    ]);
    expect(events[0]?.type).toBe('step/start');
    expect(events[13]?.type).toBe('step/end');
    expect(events.at(-1)?.type).toBe('step/end');
    expect(events.every((e) => !e.type.startsWith('step/') || (e.call === undefined && e.token === undefined))).toBe(true);
    expect(logProblems(events)).toEqual([]);
  });

  it('logs nothing for a step that has no calls or is no step, and the step’s malformed calls by their index', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    await t.host.runStep({ calls: [] });
    await t.host.runStep(null as never);
    expect(t.host.events.list()).toEqual([]);
    await t.host.runStep({ calls: [{ name: 'echo', args: {} } as never] });
    expect(t.host.events.list()[0]?.data).toEqual({ calls: ['#0'] });
  });

  it('ends a step aborted when its signal fires, still with every call’s status', async () => {
    const t = await createTestHost({ abortGraceMs: 0 });
    let started: () => void = () => undefined;
    const running = new Promise<void>((done) => {
      started = done;
    });
    t.host.tools.register(
      defineTool({
        name: 'wait',
        description: 'Waits until aborted.',
        input: z.object({}),
        execute: (_args, ctx) =>
          new Promise((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
            started();
          }),
      }),
    );
    t.host.tools.register(echoTool());
    const stop = new AbortController();
    const step = t.host.runStep(
      {
        calls: [
          { id: 'w', name: 'wait', args: {} },
          { id: 'e', name: 'echo', args: { text: 'never' } },
        ],
      },
      { signal: stop.signal },
    );
    await running;
    stop.abort();
    const { results } = await step;
    const end = t.host.events.list().find((e) => e.type === 'step/end');
    expect(end?.data).toEqual({ startSeq: 1, end: 'aborted', statuses: results.map((r) => r.outcome.status) });
    expect(results[1]?.outcome).toMatchObject({ status: 'error', error: { code: 'ABORTED_BEFORE_DISPATCH' } });
  });

  it('brackets a subagent’s nested step with its parent call, inside the outer step, and logs none for sub-calls of a body', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    t.host.tools.register(
      defineTool({
        name: 'task',
        description: 'Runs a nested step, then one single call.',
        input: z.object({}),
        async execute(_args, ctx) {
          await t.host.runStep(
            { calls: [{ id: `${ctx.call.id}:agent:0`, name: 'echo', args: { text: 'nested' } }] },
            { parent: { id: ctx.call.id, token: ctx.call.token, agent: { id: 'a1', type: 'reviewer' } } },
          );
          // What run_code does for each tool its program calls: one call through the pipeline, no step.
          await ctx.tools.execute({ id: `${ctx.call.id}:code:0`, name: 'echo', args: { text: 'sub' } });
          return 'done';
        },
      }),
    );
    await t.call('task', {}, 'outer');
    expect(brief(t.host.events.list())).toEqual([
      'step/start {"calls":["outer"]}',
      'tool/call outer',
      'step/start {"calls":["outer:agent:0"],"parent":"outer"}',
      'tool/call outer:agent:0',
      'tool/result outer:agent:0',
      'step/end {"startSeq":3,"end":"completed","statuses":["ok"],"parent":"outer"}',
      'tool/call outer:code:0',
      'tool/result outer:code:0',
      'tool/result outer',
      'step/end {"startSeq":1,"end":"completed","statuses":["ok"]}',
    ]);
    expect(logProblems(t.host.events.list())).toEqual([]);
  });

  it('reaches a JSONL sink before runStep resolves, and loadSessionLog reads it back', async () => {
    const path = join(await scratch(), 'steps.jsonl');
    const host = createHost({ session: 'steps', defaultDecision: 'allow', sink: jsonlSink(path) });
    host.tools.register(echoTool());
    await host.runStep({ calls: [{ id: 'a', name: 'echo', args: { text: 'x' } }] });
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['step/start', 'tool/call', 'tool/result', 'step/end']);
    await host.close();
    const loaded = await loadSessionLog(path);
    expect(loaded.unknownOutcomes).toEqual([]);
    expect(logProblems(loaded.events)).toEqual([]);
  });
});

describe('a resume ends the step a crash cut', () => {
  const line = (seq: number, type: string, data: object, call?: string) =>
    `${JSON.stringify({ seq, at: '2026-12-07T10:00:00.000Z', session: 's1', type, ...(call ? { call, token: `t-${call}` } : {}), data })}\n`;

  it('runs the idempotent call again in a step marked rerun, then ends the cut step interrupted', async () => {
    const path = join(await scratch(), 'cut.jsonl');
    const read = defineTool({
      name: 'read',
      description: 'Reads.',
      idempotent: true,
      input: z.object({ n: z.number() }),
      execute: ({ n }) => ({ n }),
    });
    await writeFile(
      path,
      [
        line(1, 'step/start', { calls: ['c1', 'c2', 'c3'] }),
        line(2, 'tool/call', { name: 'echo', args: '{"text":"a"}' }, 'c1'),
        line(3, 'tool/result', { name: 'echo', outcome: { status: 'ok', stage: 'execute', output: { text: 'a' } } }, 'c1'),
        line(4, 'tool/call', { name: 'echo', args: '{"text":"b"}' }, 'c2'),
        line(5, 'tool/call', { name: 'read', args: '{"n":3}' }, 'c3'),
      ].join(''),
    );
    expect((await readSessionJournal(path)).openSteps).toEqual([{ seq: 1, parent: undefined }]);
    const host = createHost({ session: 's1', sink: await openJsonlSink(path), defaultDecision: 'allow' });
    host.tools.register(echoTool());
    host.tools.register(read);
    await resumeSession(host, path);
    await host.close();
    const { events } = await loadSessionLog(path);
    expect(brief(events.slice(5))).toEqual([
      'session/resumed undefined',
      'tool/interrupted c2',
      'tool/result c2',
      'tool/interrupted c3',
      'step/start {"calls":["c3"],"rerun":true}',
      'tool/call c3',
      'tool/result c3',
      'step/end {"startSeq":10,"end":"completed","statuses":["ok"]}',
      'step/end {"startSeq":1,"end":"interrupted"}',
    ]);
    expect(logProblems(events)).toEqual([]);
    expect((await readSessionJournal(path)).openSteps).toEqual([]);
  });
});

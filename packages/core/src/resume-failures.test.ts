import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import {
  type AnySessionEvent,
  createHost,
  DshError,
  defineTool,
  jsonlSink,
  loadSessionLog,
  openJsonlSink,
  resumeSession,
  z,
} from './index.js';
import { logProblems } from './testing/index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempLog(lines: readonly string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-resume-'));
  dirs.push(dir);
  const path = join(dir, 'session.jsonl');
  await writeFile(path, lines.join(''));
  return path;
}

const at = '2026-12-03T18:00:00.000Z';
function line(seq: number, type: string, data: unknown, call?: string, session = 's1', token = `t-${call}`): string {
  return `${JSON.stringify(call === undefined ? { seq, at, session, type, data } : { seq, at, session, type, call, token, data })}\n`;
}

/** c1 answered, c2 (echo, not idempotent) and c3 (read, idempotent) unanswered. */
const crashed = [
  line(1, 'tool/call', { name: 'echo', args: '{"text":"a"}' }, 'c1'),
  line(2, 'tool/result', { name: 'echo', outcome: { status: 'ok', stage: 'execute', output: { text: 'a' } } }, 'c1'),
  line(3, 'tool/call', { name: 'echo', args: { text: 'b' } }, 'c2'),
  line(4, 'tool/call', { name: 'read', args: '{"n":12345678901234567890}' }, 'c3'),
];

const read = (runs: string[]) =>
  defineTool({
    name: 'read',
    description: 'Reads.',
    idempotent: true,
    input: z.object({ n: z.unknown() }),
    execute: (args, ctx) => {
      runs.push(ctx.call.id);
      return { n: String(args.n) };
    },
  });

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return DshError.isInstance(error) ? error.code : `not a DshError: ${String(error)}`;
  }
  return undefined;
}

async function resumedHost(path: string, session = 's1') {
  const host = createHost({ session, sink: await openJsonlSink(path), defaultDecision: 'allow' });
  return host;
}

describe('resumeSession refuses what it cannot resume, and never changes the log then', () => {
  it.each([
    [
      'a corrupt middle line',
      [crashed[0], '{"seq":2,"at":\n', ...crashed.slice(2)],
      'INVALID_SESSION_LOG',
      /session\.jsonl:2: not a JSON line/,
    ],
    [
      'a middle line that is not an event',
      [crashed[0], '{"seq":2}\n', ...crashed.slice(2)],
      'INVALID_SESSION_LOG',
      /:2: not a session event/,
    ],
    ['a gap in seq', [crashed[0], ...crashed.slice(2)], 'INVALID_SESSION_LOG', /event 2 has seq 3/],
    [
      'two sessions in one log',
      [...crashed, line(5, 'tool/call', { name: 'echo', args: {} }, 'c9', 's2')],
      'INVALID_SESSION_LOG',
      /belongs to session "s2"/,
    ],
    ['an empty log', [], 'INVALID_SESSION_LOG', /has no events/],
    [
      'a torn line followed by more lines, not recorded by a resume',
      [crashed[0], '{"seq":2', '\n', ...crashed.slice(2)],
      'INVALID_SESSION_LOG',
      /:2: not a JSON line/,
    ],
    ['another session id than the host', crashed, 'RESUME_REFUSED', /belongs to session "s1" but the host's session is "other"/],
  ])('%s', async (_what, lines, code, message) => {
    const path = await tempLog(lines as string[]);
    const before = await readFile(path, 'utf8');
    const host = await resumedHost(path, code === 'RESUME_REFUSED' ? 'other' : 's1');
    host.tools.register(echoTool());
    const error = await resumeSession(host, path).catch((e: unknown) => e);
    await host.close();
    expect(DshError.isInstance(error) && error.code).toBe(code);
    expect((error as Error).message).toMatch(message);
    expect(await readFile(path, 'utf8')).toBe(before);
    expect(host.events.list()).toEqual([]);
  });

  it('refuses a host that does not hold the log lock, a host that already logged, and what is not a host', async () => {
    const path = await tempLog(crashed);
    const before = await readFile(path, 'utf8');
    const unlocked = createHost({ session: 's1', sink: jsonlSink(path) });
    expect(await codeOf(resumeSession(unlocked, path))).toBe('RESUME_REFUSED');
    const elsewhere = createHost({ session: 's1', sink: await openJsonlSink(`${path}.other`) });
    expect(await codeOf(resumeSession(elsewhere, path))).toBe('RESUME_REFUSED');
    await elsewhere.close();
    expect(await readFile(path, 'utf8')).toBe(before);
    const used = await resumedHost(path);
    used.tools.register(echoTool());
    await used.runStep({ calls: [{ id: 'x', name: 'echo', args: { text: 'x' } }] });
    expect(await codeOf(resumeSession(used, path))).toBe('RESUME_REFUSED');
    await used.close();
    expect(await codeOf(resumeSession({ ...unlocked }, path))).toBe('RESUME_REFUSED');
    expect(await codeOf(resumeSession(unlocked, 42 as unknown as string))).toBe('RESUME_REFUSED');
    // Only the host that held the lock wrote: its own step, after the crashed events, which are intact.
    const after = await readFile(path, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).not.toMatch(/session\/resumed|tool\/interrupted/);
  });
});

describe('resumeSession answers every unanswered call once', () => {
  it('re-runs an idempotent call with its numbers exact, ends the other TOOL_INTERRUPTED, and never re-runs it', async () => {
    const path = await tempLog(crashed);
    const echoes: string[] = [];
    const reads: string[] = [];
    const host = await resumedHost(path);
    host.tools.register(echoTool(echoes));
    host.tools.register(read(reads));
    const resumed = await resumeSession(host, path);
    await host.close();
    expect(echoes).toEqual([]);
    expect(reads).toEqual(['c3']);
    expect(resumed.resumed.map((c) => [c.id, c.resolution])).toEqual([
      ['c2', 'interrupted'],
      ['c3', 'rerun'],
    ]);
    expect(resumed.resumed[1]?.outcome).toMatchObject({ status: 'ok', output: { n: '12345678901234567890' } });
    expect(resumed.resumed[0]?.outcome).toMatchObject({
      error: { code: 'TOOL_INTERRUPTED', data: { callSeq: 3, reason: 'not-idempotent' } },
    });
    expect(resumed.resumed[0]?.outcome.status === 'error' && resumed.resumed[0].outcome.error.message).toMatch(/verify before retrying/);
    const { events } = await loadSessionLog(path);
    expect(logProblems(events)).toEqual([]);
    // The re-run runs in a step of its own: step/start, tool/call, tool/result, step/end.
    expect(events.slice(4).map((e) => e.seq)).toEqual([5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('applies the pipeline again to a re-run: a pre-execute tap that now denies decides it', async () => {
    const path = await tempLog(crashed);
    const reads: string[] = [];
    const host = await resumedHost(path);
    host.tools.register(echoTool());
    host.tools.register(read(reads));
    host.hooks.preExecute.tap('no-reads', (state) =>
      state.call.name === 'read' ? { decision: 'deny', reason: 'reads are off now' } : undefined,
    );
    const resumed = await resumeSession(host, path);
    await host.close();
    expect(reads).toEqual([]);
    expect(resumed.resumed[1]).toMatchObject({ id: 'c3', resolution: 'rerun', outcome: { status: 'denied', reason: 'reads are off now' } });
    expect(logProblems((await loadSessionLog(path)).events)).toEqual([]);
  });

  it('ends a sub-call and a call of a tool no longer registered TOOL_INTERRUPTED, even when idempotent', async () => {
    const path = await tempLog([
      line(1, 'tool/call', { name: 'run_code', args: '{}' }, 'outer'),
      line(2, 'tool/call', { name: 'read', args: '{"n":1}', parent: 'outer' }, 'outer:code:0'),
      line(3, 'tool/call', { name: 'gone', args: '{}' }, 'g1'),
    ]);
    const reads: string[] = [];
    const host = await resumedHost(path);
    host.tools.register(read(reads));
    const resumed = await resumeSession(host, path);
    await host.close();
    expect(reads).toEqual([]);
    expect(resumed.resumed.map((c) => [c.id, c.resolution])).toEqual([
      ['outer', 'interrupted'],
      ['g1', 'interrupted'],
    ]);
    expect(resumed.calls.map((c) => c.id)).toEqual(['outer', 'g1']);
    const { events } = await loadSessionLog(path);
    const reasons = events.filter((e) => e.type === 'tool/interrupted').map((e) => [e.call, e.data.reason]);
    expect(reasons).toEqual([
      ['outer', 'unknown-tool'],
      ['outer:code:0', 'sub-call'],
      ['g1', 'unknown-tool'],
    ]);
    expect(logProblems(events)).toEqual([]);
  });

  it('re-runs again a call whose re-run was itself cut short by a second crash', async () => {
    const path = await tempLog([
      ...crashed.slice(0, 2),
      line(3, 'tool/call', { name: 'read', args: '{"n":1}' }, 'c3'),
      line(4, 'session/resumed', { afterSeq: 3, interrupted: 1 }),
      line(5, 'tool/interrupted', { name: 'read', callSeq: 3, resolution: 'rerun', reason: 'idempotent' }, 'c3'),
      // A re-run is a new call under a new token.
      line(6, 'tool/call', { name: 'read', args: '{"n":1}' }, 'c3', 's1', 't-rerun'),
    ]);
    const reads: string[] = [];
    const host = await resumedHost(path);
    host.tools.register(read(reads));
    const resumed = await resumeSession(host, path);
    await host.close();
    expect(reads).toEqual(['c3']);
    expect(resumed.resumed.map((c) => [c.id, c.resolution, c.outcome.status])).toEqual([['c3', 'rerun', 'ok']]);
    const { events } = await loadSessionLog(path);
    expect(events.find((e) => e.seq === 8)).toMatchObject({ type: 'tool/interrupted', data: { callSeq: 6 } });
    expect(events.filter((e) => e.type === 'tool/result' && e.call === 'c3')).toHaveLength(1);
    expect(logProblems(events)).toEqual([]);
  });

  it('resumes from loaded events into any sink, checking them the same way', async () => {
    const events = crashed.map((l) => JSON.parse(l) as AnySessionEvent);
    const written: AnySessionEvent[] = [];
    const host = createHost({ session: 's1', sink: { append: (e) => void written.push(e) } });
    host.tools.register(echoTool());
    const resumed = await resumeSession(host, events.slice(0, 3));
    expect(resumed.resumed.map((c) => [c.id, c.resolution])).toEqual([['c2', 'interrupted']]);
    expect(written.map((e) => [e.seq, e.type])).toEqual([
      [4, 'session/resumed'],
      [5, 'tool/interrupted'],
      [6, 'tool/result'],
    ]);
    const fresh = createHost({ session: 's1' });
    expect(await codeOf(resumeSession(fresh, [events[0] as AnySessionEvent, events[2] as AnySessionEvent]))).toBe('INVALID_SESSION_LOG');
  });

  it('stops with SINK_FAILED when the resume cannot be recorded', async () => {
    const events = crashed.map((l) => JSON.parse(l) as AnySessionEvent);
    const host = createHost({
      session: 's1',
      sink: {
        append: () => {
          throw new Error('disk full');
        },
      },
    });
    const error = await resumeSession(host, events).catch((e: unknown) => e);
    expect(DshError.isInstance(error) && error.code).toBe('SINK_FAILED');
    expect((error as Error).message).toMatch(/session\/resumed event: disk full/);
  });

  it('keeps the idempotency flag out of the schemas the model sees', () => {
    const host = createHost();
    host.tools.register(read([]));
    expect(Object.keys(host.tools.schemas()[0] ?? {}).sort()).toEqual(['description', 'inputSchema', 'name']);
    expect(host.tools.get('read')?.idempotent).toBe(true);
  });
});

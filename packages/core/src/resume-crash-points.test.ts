import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import {
  type AnySessionEvent,
  type AnyToolDefinition,
  createHost,
  defineTool,
  loadSessionLog,
  openJsonlSink,
  resumeSession,
  z,
} from './index.js';
import { scriptedApproval } from './testing/index.js';
import { logProblems } from './testing/log-problems.js';

const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) killGroup(child);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-(child.pid as number), 'SIGKILL');
  } catch {
    // Already gone.
  }
}

async function until(what: string, ready: () => boolean): Promise<void> {
  // A hang bound only: the verdict never depends on how long this takes.
  for (let i = 0; i < 3000 && !ready(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!ready()) throw new Error(`gave up waiting for ${what}`);
}

async function tempLog(lines: readonly string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-resume-crash-'));
  dirs.push(dir);
  const path = join(dir, 'session.jsonl');
  await writeFile(path, lines.join(''));
  return path;
}

const at = '2026-12-03T18:00:00.000Z';
function line(seq: number, type: string, data: unknown, call?: string, token = `t-${call}`): string {
  return `${JSON.stringify(call === undefined ? { seq, at, session: 's1', type, data } : { seq, at, session: 's1', type, call, token, data })}\n`;
}

const read = (runs: string[]) =>
  defineTool({
    name: 'read',
    description: 'Reads.',
    idempotent: true,
    input: z.object({ n: z.number() }),
    execute: (args, ctx) => {
      runs.push(ctx.call.id);
      return { n: args.n };
    },
  });

function resultsOf(events: readonly AnySessionEvent[], call: string): AnySessionEvent[] {
  return events.filter((e) => e.type === 'tool/result' && e.call === call);
}

describe('a resume cut short between announcing a re-run and logging it (issue 36 item 1)', () => {
  it('runs again a call whose tool/interrupted rerun has no new tool/call after it', async () => {
    // The minimal log from the issue: the crash came right after the re-run was announced.
    const path = await tempLog([
      line(1, 'tool/call', { name: 'read', args: '{"n":1}' }, 'r1'),
      line(2, 'session/resumed', { afterSeq: 1, interrupted: 1 }),
      line(3, 'tool/interrupted', { name: 'read', callSeq: 1, resolution: 'rerun', reason: 'idempotent' }, 'r1'),
    ]);
    const runs: string[] = [];
    const host = createHost({ session: 's1', sink: await openJsonlSink(path), defaultDecision: 'allow' });
    host.tools.register(read(runs));
    const resumed = await resumeSession(host, path);
    await host.close();
    expect(runs).toEqual(['r1']);
    expect(resumed.resumed.map((c) => [c.id, c.resolution, c.outcome.status])).toEqual([['r1', 'rerun', 'ok']]);
    expect(resumed.calls.map((c) => [c.id, c.outcome.status])).toEqual([['r1', 'ok']]);
    const { events, unknownOutcomes } = await loadSessionLog(path);
    expect(unknownOutcomes).toEqual([]);
    expect(events[3]).toMatchObject({ type: 'session/resumed', data: { afterSeq: 3, interrupted: 1 } });
    expect(events[4]).toMatchObject({ type: 'tool/interrupted', call: 'r1', data: { callSeq: 1, resolution: 'rerun' } });
    expect(resultsOf(events, 'r1')).toHaveLength(1);
    expect(logProblems(events)).toEqual([]);
  });

  it('answers both calls after a SIGKILL of the resume while its first re-run waits for approval', async () => {
    const path = await tempLog([]);
    const notes = join(path, '..', 'notes.txt');
    await writeFile(notes, 'the notes\n');
    const args = JSON.stringify({ path: notes });
    await writeFile(
      path,
      [line(1, 'tool/call', { name: 'read_text', args }, 'r1'), line(2, 'tool/call', { name: 'read_text', args }, 'r2')].join(''),
    );
    const marker = join(path, '..', 'asked');
    const child = spawn(process.execPath, [join(fixtures, 'resume-waiting-approval.mjs'), path, marker], {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Killed once the request is asked and logged: the sink writes it while the provider waits.
    await until('the first re-run to be put to approval', () => {
      if (child.exitCode !== null) throw new Error(`the resume exited early: ${stderr}`);
      const log = readFileSync(path, 'utf8');
      return existsSync(marker) && log.includes('"approval/request"') && log.endsWith('\n');
    });
    expect(await readFile(marker, 'utf8')).toBe('r1');
    killGroup(child);
    await until('the killed resume to be gone', () => child.signalCode !== null);
    const killed = (await loadSessionLog(path)).events
      .slice(2)
      .filter((e) => !(e.type === 'tool/result' && e.data.synthetic === true))
      .map((e) => [e.type, e.call]);
    expect(killed).toEqual([
      ['session/resumed', undefined],
      ['tool/interrupted', 'r1'],
      ['tool/interrupted', 'r2'],
      ['step/start', undefined],
      ['tool/call', 'r1'],
      ['approval/request', 'r1'],
    ]);

    const { readText } = (await import(pathToFileURL(join(fixtures, 'resume-tools.mjs')).href)) as { readText: AnyToolDefinition };
    const approval = scriptedApproval('allowed-once');
    const host = createHost({ session: 's1', sink: await openJsonlSink(path), approval: approval.provider });
    host.tools.register(readText);
    const resumed = await resumeSession(host, path);
    await host.close();
    expect(approval.requests.map((r) => r.call.id)).toEqual(['r1', 'r2']);
    expect(resumed.resumed.map((c) => [c.id, c.resolution, c.outcome.status])).toEqual([
      ['r1', 'rerun', 'ok'],
      ['r2', 'rerun', 'ok'],
    ]);
    expect(resumed.calls.map((c) => [c.id, c.outcome.status])).toEqual([
      ['r1', 'ok'],
      ['r2', 'ok'],
    ]);
    const { events } = await loadSessionLog(path);
    expect(events.find((e) => e.type === 'session/resumed' && e.seq > 3)).toMatchObject({ data: { interrupted: 2 } });
    expect(resultsOf(events, 'r1')).toHaveLength(1);
    expect(resultsOf(events, 'r2')).toHaveLength(1);
    expect(logProblems(events)).toEqual([]);
  }, 120_000);

  it('answers the second of two re-runs when the crash came while the first waited for approval', async () => {
    // The crashed resume announced both re-runs, logged the first one's new tool/call and asked for approval.
    const path = await tempLog([
      line(1, 'tool/call', { name: 'read', args: '{"n":1}' }, 'r1'),
      line(2, 'tool/call', { name: 'read', args: '{"n":2}' }, 'r2'),
      line(3, 'session/resumed', { afterSeq: 2, interrupted: 2 }),
      line(4, 'tool/interrupted', { name: 'read', callSeq: 1, resolution: 'rerun', reason: 'idempotent' }, 'r1'),
      line(5, 'tool/interrupted', { name: 'read', callSeq: 2, resolution: 'rerun', reason: 'idempotent' }, 'r2'),
      line(6, 'tool/call', { name: 'read', args: '{"n":1}' }, 'r1', 't-rerun'),
      line(7, 'approval/request', { name: 'read', args: { n: 1 }, reason: 'asked' }, 'r1', 't-rerun'),
    ]);
    const runs: string[] = [];
    const approval = scriptedApproval('allowed-once');
    const host = createHost({ session: 's1', sink: await openJsonlSink(path), approval: approval.provider });
    host.tools.register(read(runs));
    const resumed = await resumeSession(host, path);
    await host.close();
    expect(runs).toEqual(['r1', 'r2']);
    expect(approval.requests.map((r) => r.call.id)).toEqual(['r1', 'r2']);
    expect(resumed.resumed.map((c) => [c.id, c.resolution, c.outcome.status])).toEqual([
      ['r1', 'rerun', 'ok'],
      ['r2', 'rerun', 'ok'],
    ]);
    const { events } = await loadSessionLog(path);
    expect(events[7]).toMatchObject({ type: 'session/resumed', data: { interrupted: 2 } });
    expect(resultsOf(events, 'r1')).toHaveLength(1);
    expect(resultsOf(events, 'r2')).toHaveLength(1);
  });

  it('ends TOOL_INTERRUPTED a call announced for a re-run whose tool is no longer idempotent, with one result', async () => {
    const path = await tempLog([
      line(1, 'tool/call', { name: 'echo', args: '{"text":"a"}' }, 'c1'),
      line(2, 'session/resumed', { afterSeq: 1, interrupted: 1 }),
      line(3, 'tool/interrupted', { name: 'echo', callSeq: 1, resolution: 'rerun', reason: 'idempotent' }, 'c1'),
    ]);
    const echoes: string[] = [];
    const host = createHost({ session: 's1', sink: await openJsonlSink(path), defaultDecision: 'allow' });
    host.tools.register(echoTool(echoes));
    const resumed = await resumeSession(host, path);
    await host.close();
    expect(echoes).toEqual([]);
    expect(resumed.resumed).toMatchObject([{ id: 'c1', resolution: 'interrupted', outcome: { error: { code: 'TOOL_INTERRUPTED' } } }]);
    const { events } = await loadSessionLog(path);
    expect(resultsOf(events, 'c1')).toHaveLength(1);
    expect(logProblems(events)).toEqual([]);
    // A further resume finds nothing left to answer.
    const again = createHost({ session: 's1', sink: await openJsonlSink(path) });
    again.tools.register(echoTool(echoes));
    expect((await resumeSession(again, path)).resumed).toEqual([]);
    await again.close();
  });

  it('resumes a log whose resume was killed while recording the torn line it had terminated', async () => {
    // The first crash tore line 2; a resume terminated it and was killed halfway through its session/resumed.
    const path = await tempLog([
      line(1, 'tool/call', { name: 'echo', args: '{"text":"a"}' }, 'c1'),
      '{"seq":2,"at":"20\n',
      '{"seq":2,"at":"2026-12-05T1',
    ]);
    const host = createHost({ session: 's1', sink: await openJsonlSink(path) });
    host.tools.register(echoTool());
    const resumed = await resumeSession(host, path);
    await host.close();
    expect(resumed.tornLine).toBe(3);
    expect(resumed.resumed).toMatchObject([{ id: 'c1', resolution: 'interrupted' }]);
    const { events } = await loadSessionLog(path);
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'tool/call'],
      [2, 'session/resumed'],
      [3, 'tool/interrupted'],
      [4, 'tool/result'],
    ]);
    expect(logProblems(events)).toEqual([]);
  });

  it('still refuses a bad line that no resume recorded, even when torn lines follow it', async () => {
    const path = await tempLog([
      line(1, 'tool/call', { name: 'echo', args: '{"text":"a"}' }, 'c1'),
      '{"seq":2,"at":"20\n',
      '{"seq":2,"at":"2026-12-05T1\n',
      line(2, 'session/resumed', { afterSeq: 1, interrupted: 1, tornLine: 2 }),
    ]);
    const host = createHost({ session: 's1', sink: await openJsonlSink(path) });
    const error = await resumeSession(host, path).catch((e: unknown) => e);
    await host.close();
    expect(error).toMatchObject({ code: 'INVALID_SESSION_LOG' });
    expect((error as Error).message).toMatch(/session\.jsonl:2: not a JSON line/);
  });

  it('reports a re-run announced but never logged, in logProblems', () => {
    const events = [
      line(1, 'tool/call', { name: 'read', args: '{"n":1}' }, 'r1'),
      line(2, 'session/resumed', { afterSeq: 1, interrupted: 1 }),
      line(3, 'tool/interrupted', { name: 'read', callSeq: 1, resolution: 'rerun', reason: 'idempotent' }, 'r1'),
    ].map((l) => JSON.parse(l) as AnySessionEvent);
    expect(logProblems(events)).toEqual(['call r1 has no tool/result: its re-run was announced but never logged']);
  });
});

describe('resuming from loadSessionLog events (issue 36 item 2)', () => {
  /** c1 answered; c2 (echo, not idempotent) and c3 (read, idempotent) unanswered. */
  const crashed = [
    line(1, 'tool/call', { name: 'echo', args: '{"text":"a"}' }, 'c1'),
    line(2, 'tool/result', { name: 'echo', outcome: { status: 'ok', stage: 'execute', output: { text: 'a' } } }, 'c1'),
    line(3, 'tool/call', { name: 'echo', args: '{"text":"b"}' }, 'c2'),
    line(4, 'tool/call', { name: 'read', args: '{"n":3}' }, 'c3'),
  ];

  it('never takes loadSessionLog’s synthetic results for logged ones', async () => {
    const path = await tempLog(crashed);
    const loaded = await loadSessionLog(path);
    expect(loaded.unknownOutcomes).toEqual(['c2', 'c3']);
    const written: AnySessionEvent[] = [];
    const runs: string[] = [];
    const host = createHost({ session: 's1', sink: { append: (e) => void written.push(e) }, defaultDecision: 'allow' });
    host.tools.register(echoTool());
    host.tools.register(read(runs));
    const resumed = await resumeSession(host, loaded.events);
    expect(runs).toEqual(['c3']);
    expect(resumed.afterSeq).toBe(4);
    expect(resumed.resumed.map((c) => [c.id, c.resolution, c.outcome.status])).toEqual([
      ['c2', 'interrupted', 'error'],
      ['c3', 'rerun', 'ok'],
    ]);
    expect(resumed.calls.map((c) => c.outcome.status === 'error' && c.outcome.error.code)).not.toContain('TOOL_OUTCOME_UNKNOWN');
    expect(written.map((e) => [e.seq, e.type, e.call])).toEqual([
      [5, 'session/resumed', undefined],
      [6, 'tool/interrupted', 'c2'],
      [7, 'tool/result', 'c2'],
      [8, 'tool/interrupted', 'c3'],
      [9, 'step/start', undefined],
      [10, 'tool/call', 'c3'],
      [11, 'tool/result', 'c3'],
      [12, 'step/end', undefined],
    ]);
  });

  it('continues the log on disk without a seq gap when the sink is openJsonlSink, so later resumes still read it', async () => {
    const path = await tempLog(crashed);
    const loaded = await loadSessionLog(path);
    const host = createHost({ session: 's1', sink: await openJsonlSink(path), defaultDecision: 'allow' });
    host.tools.register(echoTool());
    host.tools.register(read([]));
    await resumeSession(host, loaded.events);
    await host.close();
    const events = (await loadSessionLog(path)).events;
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(logProblems(events)).toEqual([]);
    const again = createHost({ session: 's1', sink: await openJsonlSink(path) });
    again.tools.register(echoTool());
    again.tools.register(read([]));
    const second = await resumeSession(again, path);
    await again.close();
    expect(second.resumed).toEqual([]);
    expect(second.calls.map((c) => [c.id, c.outcome.status])).toEqual([
      ['c1', 'ok'],
      ['c2', 'error'],
      ['c3', 'ok'],
    ]);
  });

  it('terminates and records a torn last line of the sink’s file when resuming from its loaded events', async () => {
    const path = await tempLog([...crashed, '{"seq":5,"at":"2026-']);
    const loaded = await loadSessionLog(path);
    expect(loaded.droppedTornLine).toBe(true);
    const host = createHost({ session: 's1', sink: await openJsonlSink(path), defaultDecision: 'allow' });
    host.tools.register(echoTool());
    host.tools.register(read([]));
    const resumed = await resumeSession(host, loaded.events);
    await host.close();
    expect(resumed.tornLine).toBe(5);
    const after = await loadSessionLog(path);
    expect(after.droppedTornLine).toBe(false);
    expect(after.events[4]).toMatchObject({ seq: 5, type: 'session/resumed', data: { afterSeq: 4, tornLine: 5 } });
    expect(logProblems(after.events)).toEqual([]);
  });

  it('refuses events that are not the sink file’s, and leaves the file as it was', async () => {
    const path = await tempLog(crashed);
    const before = await readFile(path, 'utf8');
    const shorter = (await loadSessionLog(path)).events.slice(0, 2);
    const host = createHost({ session: 's1', sink: await openJsonlSink(path), defaultDecision: 'allow' });
    host.tools.register(echoTool());
    const error = await resumeSession(host, shorter).catch((e: unknown) => e);
    await host.close();
    expect(error).toMatchObject({ code: 'RESUME_REFUSED' });
    expect((error as Error).message).toMatch(/ends at seq 4.*events end at seq 2/);
    expect(await readFile(path, 'utf8')).toBe(before);
    // Nor does it start a new file at the events' next seq.
    const elsewhere = join(path, '..', 'elsewhere.jsonl');
    const other = createHost({ session: 's1', sink: await openJsonlSink(elsewhere) });
    expect(await resumeSession(other, (await loadSessionLog(path)).events).catch((e: unknown) => e)).toMatchObject({
      code: 'RESUME_REFUSED',
    });
    await other.close();
    expect(existsSync(elsewhere)).toBe(false);
  });
});

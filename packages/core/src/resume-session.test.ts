import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnySessionEvent,
  type AnyToolDefinition,
  createHost,
  DshError,
  loadSessionLog,
  openJsonlSink,
  resumeSession,
} from './index.js';
import { logProblems, processExists } from './testing/index.js';

const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
let tools: { readText: AnyToolDefinition; runCommand: AnyToolDefinition };

beforeAll(async () => {
  tools = (await import(pathToFileURL(join(fixtures, 'resume-tools.mjs')).href)) as typeof tools;
});

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

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return DshError.isInstance(error) ? error.code : `not a DshError: ${String(error)}`;
  }
  return undefined;
}

/** Runs the crashing session in a child process group, waits until both calls of its second step run, and SIGKILLs the group. */
async function crashedSession(): Promise<{ dir: string; log: string; notes: string; commandPid: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-resume-'));
  dirs.push(dir);
  const log = join(dir, 'session.jsonl');
  const notes = join(dir, 'notes.txt');
  await writeFile(notes, 'the notes\n');
  const child = spawn(process.execPath, [join(fixtures, 'crashing-session.mjs'), log, notes, dir], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const started = join(dir, 'started');
  await until('both calls to run', () => {
    if (child.exitCode !== null) throw new Error(`the session exited early: ${stderr}`);
    return existsSync(started) && existsSync(join(dir, 'go.waiting')) && existsSync(`${log}.lock`);
  });
  const commandPid = Number(await readFile(started, 'utf8'));
  expect(Number.isInteger(commandPid) && commandPid > 0, `the command's pid marker: ${commandPid}`).toBe(true);
  // A second writer while the first is alive is refused, and the log is untouched.
  const before = await readFile(log, 'utf8');
  expect(await codeOf(openJsonlSink(log))).toBe('SESSION_LOCKED');
  expect(await readFile(log, 'utf8')).toBe(before);
  killGroup(child);
  await until(
    `the killed processes to be gone (session ${child.pid}, command ${commandPid})`,
    () => child.signalCode !== null && !processExists(commandPid),
  );
  return { dir, log, notes, commandPid };
}

function resultsPerCall(events: readonly AnySessionEvent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of events) if (e.type === 'tool/result' && e.call !== undefined) counts[e.call] = (counts[e.call] ?? 0) + 1;
  return counts;
}

describe('resumeSession after a SIGKILL mid-call (issue 25 item 1)', () => {
  it('re-runs the idempotent read, ends the command TOOL_INTERRUPTED, and leaves a well-formed log', async () => {
    const { dir, log } = await crashedSession();
    const crashed = await readFile(log, 'utf8');
    const crashedEvents = crashed.trim().split('\n').length;
    // The crash left a torn last line besides the two unanswered calls.
    await appendFile(log, '{"seq":99,"at":"2026-');
    await writeFile(join(dir, 'go'), '');
    await unlink(join(dir, 'started'));

    const sink = await openJsonlSink(log);
    const host = createHost({ session: 'crash-session', sink, defaultDecision: 'allow' });
    host.tools.register(tools.readText);
    host.tools.register(tools.runCommand);
    const resumed = await resumeSession(host, log);

    expect(resumed.afterSeq).toBe(crashedEvents);
    expect(resumed.tornLine).toBe(crashedEvents + 1);
    expect(resumed.resumed.map((c) => [c.id, c.resolution, c.outcome.status])).toEqual([
      ['c2', 'rerun', 'ok'],
      ['c3', 'interrupted', 'error'],
    ]);
    expect(resumed.resumed[0]?.outcome).toMatchObject({ status: 'ok', output: { text: 'the notes\n' } });
    expect(resumed.resumed[1]?.outcome).toMatchObject({ status: 'error', stage: 'step', error: { code: 'TOOL_INTERRUPTED' } });
    expect(resumed.calls.map((c) => [c.id, c.outcome.status])).toEqual([
      ['c1', 'ok'],
      ['c2', 'ok'],
      ['c3', 'error'],
    ]);
    // A second live writer (this process, another host) is refused while the resumed host writes.
    expect(await codeOf(openJsonlSink(log))).toBe('SESSION_LOCKED');
    await host.close();
    expect(existsSync(`${log}.lock`)).toBe(false);
    // The command was not silently run again.
    expect(existsSync(join(dir, 'started'))).toBe(false);

    const after = await readFile(log, 'utf8');
    expect(after.startsWith(`${crashed}{"seq":99,"at":"2026-\n`)).toBe(true);
    const loaded = await loadSessionLog(log);
    expect(loaded.unknownOutcomes).toEqual([]);
    expect(loaded.droppedTornLine).toBe(false);
    const events = loaded.events;
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(new Set(events.map((e) => e.session))).toEqual(new Set(['crash-session']));
    expect(logProblems(events)).toEqual([]);
    expect(resultsPerCall(events)).toEqual({ c1: 1, c2: 1, c3: 1 });
    const tail = events.slice(crashedEvents).map((e) => [e.type, e.call]);
    expect(tail).toEqual([
      ['session/resumed', undefined],
      ['tool/interrupted', 'c2'],
      ['tool/interrupted', 'c3'],
      ['tool/result', 'c3'],
      ['step/start', undefined],
      ['tool/call', 'c2'],
      ['tool/result', 'c2'],
      ['step/end', undefined],
      ['step/end', undefined],
    ]);
    // The crash cut the second step (c2, c3): the re-run runs in a step of its own, then the cut step ends.
    const cut = events.find((e) => e.type === 'step/start' && e.data.calls.join() === 'c2,c3');
    const rerun = events[crashedEvents + 4];
    expect(rerun).toMatchObject({ type: 'step/start', data: { calls: ['c2'], rerun: true } });
    expect(events.at(-2)).toMatchObject({ type: 'step/end', data: { startSeq: rerun?.seq, end: 'completed', statuses: ['ok'] } });
    expect(events.at(-1)).toMatchObject({ type: 'step/end', data: { startSeq: cut?.seq, end: 'interrupted' } });
    expect(events[crashedEvents]?.data).toEqual({ afterSeq: crashedEvents, interrupted: 2, tornLine: crashedEvents + 1 });
    const interrupted = events.filter((e) => e.type === 'tool/interrupted').map((e) => e.data);
    expect(interrupted).toEqual([
      { name: 'read_text', callSeq: expect.any(Number), resolution: 'rerun', reason: 'idempotent' },
      { name: 'run_command', callSeq: expect.any(Number), resolution: 'interrupted', reason: 'not-idempotent' },
    ]);

    // Resuming the resumed log again finds nothing to do and appends only its session/resumed.
    const again = createHost({ session: 'crash-session', sink: await openJsonlSink(log), defaultDecision: 'allow' });
    again.tools.register(tools.readText);
    const second = await resumeSession(again, log);
    await again.close();
    expect(second.resumed).toEqual([]);
    expect(second.calls.map((c) => c.id)).toEqual(['c1', 'c2', 'c3']);
    const final = (await loadSessionLog(log)).events;
    expect(final.length).toBe(events.length + 1);
    expect(final.at(-1)).toMatchObject({ seq: events.length + 1, type: 'session/resumed', data: { interrupted: 0 } });
    expect(logProblems(final)).toEqual([]);
  }, 120_000);
});

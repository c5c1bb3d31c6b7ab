import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AnySessionEvent, createHost, defineTool, jsonlSink, openJsonlSink, resumeSession, z } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import { runDsh, scratchDir } from './fixtures/run-dsh.js';

interface CallJson {
  id: string;
  outcome: { status: string } | null;
  lateSettlement: { status: string } | null;
  children: CallJson[];
}

/** Resolves when the host logs an event of `type`. */
function nextEvent(host: ReturnType<typeof createHost>, type: string): Promise<AnySessionEvent> {
  return new Promise((done) => {
    const stop = host.events.subscribe((event) => {
      if (event.type !== type) return;
      stop();
      done(event);
    });
  });
}

describe('dsh log on logs written by a real host', () => {
  it('shows a body that settled after its call stopped waiting, under that call, after its result', async () => {
    const dir = scratchDir();
    const path = join(dir, 'late.jsonl');
    let release: () => void = () => undefined;
    const released = new Promise<void>((done) => {
      release = done;
    });
    let started: () => void = () => undefined;
    const running = new Promise<void>((done) => {
      started = done;
    });
    // No grace: once the step is aborted the call settles at once, without waiting for the body.
    const host = createHost({ session: 'late', sink: jsonlSink(path), defaultDecision: 'allow', abortGraceMs: 0 });
    host.tools.register(
      defineTool({
        name: 'deploy',
        description: 'A deploy that ignores being stopped.',
        input: z.object({ target: z.string() }),
        async execute() {
          started();
          await released;
          return { deployed: true };
        },
      }),
    );
    const stop = new AbortController();
    const step = host.runStep({ calls: [{ id: 'deploy-1', name: 'deploy', args: { target: 'prod' } }] }, { signal: stop.signal });
    await running;
    stop.abort();
    const { results } = await step;
    expect(results[0]?.outcome.status).not.toBe('ok');
    const late = nextEvent(host, 'tool/late-settlement');
    release();
    await late;
    await host.close();

    const run = await runDsh(['log', path], { cwd: dir, home: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /\[deploy-1\][^\n]*\n(?: {4}[^\n]*\n)*? {4}! late settlement: the body settled ok after \d+ ms, past its 0 ms grace period; the result above stands/,
    );
    const json = JSON.parse((await runDsh(['log', path, '--json'], { cwd: dir, home: dir })).stdout) as { steps: { calls: CallJson[] }[] };
    const call = json.steps[0]?.calls[0];
    expect(call?.lateSettlement).toMatchObject({ status: 'ok' });
  });

  it('groups a subagent’s calls (`<parent>:agent:<n>`) under the call that ran them', async () => {
    const dir = scratchDir();
    const path = join(dir, 'agents.jsonl');
    const host = createHost({ session: 'agents', sink: jsonlSink(path), defaultDecision: 'allow' });
    host.tools.register(
      defineTool({ name: 'look', description: 'Looks.', input: z.object({ at: z.string() }), execute: ({ at }) => ({ saw: at }) }),
    );
    host.tools.register(
      defineTool({
        name: 'task',
        description: 'Runs a subagent step.',
        input: z.object({ goal: z.string() }),
        async execute({ goal }, ctx) {
          const { results } = await host.runStep(
            {
              calls: [
                { id: `${ctx.call.id}:agent:0`, name: 'look', args: { at: goal } },
                { id: `${ctx.call.id}:agent:1`, name: 'look', args: { at: `${goal} again` } },
              ],
            },
            { parent: { id: ctx.call.id, token: ctx.call.token } },
          );
          return { done: results.length };
        },
      }),
    );
    await host.runStep({ calls: [{ id: 'task-1', name: 'task', args: { goal: 'the sky' } }] });
    await host.runStep({ calls: [{ id: 'look-1', name: 'look', args: { at: 'the sea' } }] });
    await host.close();

    const run = await runDsh(['log', path], { cwd: dir, home: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/session agents · \d+ events · 2 steps · 2 calls · 2 sub-calls\n/);
    expect(run.stdout).toMatch(
      /✔ task \[task-1\] ok[^\n]*\n(?:[^\n]*\n)*? {4}✔ look \[task-1:agent:0\] ok[^\n]*\n(?:[^\n]*\n)*? {4}✔ look \[task-1:agent:1\] ok/,
    );
    expect(run.stdout).toMatch(/Step 2 [^\n]*\n✔ look \[look-1\] ok/);
    const json = JSON.parse((await runDsh(['log', path, '--json'], { cwd: dir, home: dir })).stdout) as { steps: { calls: CallJson[] }[] };
    expect(json.steps[0]?.calls[0]?.children.map((c) => c.id)).toEqual(['task-1:agent:0', 'task-1:agent:1']);
  });
});

describe('dsh log steps (issue 38 item 16)', () => {
  /** Two runSteps of 6 and 2 calls, ids reused as providers number them, written by a real host. */
  async function twoSteps(): Promise<{ dir: string; path: string }> {
    const dir = scratchDir();
    const path = join(dir, 'steps.jsonl');
    const host = createHost({ session: 'steps', sink: jsonlSink(path), defaultDecision: 'allow' });
    host.tools.register(
      defineTool({ name: 'echo', description: 'Echoes.', input: z.object({ t: z.string() }), execute: ({ t }) => ({ t }) }),
    );
    await host.runStep({ calls: Array.from({ length: 6 }, (_, i) => ({ id: `call_${i}`, name: 'echo', args: { t: `a${i}` } })) });
    await host.runStep({ calls: Array.from({ length: 2 }, (_, i) => ({ id: `call_${i}`, name: 'echo', args: { t: `b${i}` } })) });
    await host.close();
    return { dir, path };
  }

  it('shows two runSteps of 6 and 2 calls as 2 steps of 6 and 2 calls, from the step/start and step/end core logs', async () => {
    const { dir, path } = await twoSteps();
    const run = await runDsh(['log', path, '--no-color'], { cwd: dir, home: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/session steps · 20 events · 2 steps · 8 calls\n/);
    expect(run.stdout).toMatch(/Step 1 · [^\n]* · 6 calls/);
    expect(run.stdout).toMatch(/Step 2 · [^\n]* · 2 calls/);
    const json = JSON.parse((await runDsh(['log', path, '--json'], { cwd: dir, home: dir })).stdout) as {
      stepsMarked: boolean;
      steps: { calls: CallJson[]; end: { data: { end: string } } | null }[];
    };
    expect(json.stepsMarked).toBe(true);
    expect(json.steps.map((s) => s.calls.map((c) => c.id))).toEqual([
      ['call_0', 'call_1', 'call_2', 'call_3', 'call_4', 'call_5'],
      ['call_0', 'call_1'],
    ]);
    expect(json.steps.map((s) => s.end?.data.end)).toEqual(['completed', 'completed']);
  });

  it('falls back to guessing, and says so, for the same log written before core logged steps', async () => {
    const { dir, path } = await twoSteps();
    // What the log looked like before: the same calls, no step events, seq without gaps.
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; type: string });
    const old = lines.filter((e) => !e.type.startsWith('step/')).map((e, i) => JSON.stringify({ ...e, seq: i + 1 }));
    const oldPath = join(dir, 'old.jsonl');
    writeFileSync(oldPath, `${old.join('\n')}\n`);
    const run = await runDsh(['log', oldPath, '--no-color'], { cwd: dir, home: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/session steps · 16 events · \d+ steps \(guessed: the log marks none\) · 8 calls\n/);
  });

  it('shows a step a crash cut and a resume finished as one step, its re-run call on its own card, and says how it ended', async () => {
    const dir = scratchDir();
    const path = join(dir, 'cut.jsonl');
    const at = new Date().toISOString();
    const line = (seq: number, type: string, data: object, call?: string) =>
      JSON.stringify({ seq, at, session: 'cut', type, ...(call ? { call, token: `t-${call}` } : {}), data });
    // The crash cut a step of three calls: a1 answered, a2 started, a3 never reached.
    writeFileSync(
      path,
      `${[
        line(1, 'step/start', { calls: ['a1', 'a2', 'a3'] }),
        line(2, 'tool/call', { name: 'look', args: '{"at":"x"}' }, 'a1'),
        line(3, 'tool/result', { name: 'look', outcome: { status: 'ok', stage: 'execute', output: { saw: 'x' } } }, 'a1'),
        line(4, 'tool/call', { name: 'look', args: '{"at":"y"}' }, 'a2'),
      ].join('\n')}\n`,
    );
    const before = await runDsh(['log', path, '--no-color'], { cwd: dir, home: dir });
    expect(before.stdout).toMatch(/1 step · 2 calls/);
    expect(before.stdout).toContain('the log has no tool/call for a3: the process stopped before it');
    expect(before.stdout).toContain('the log has no end for this step: it was still running, or the process stopped during it');

    const host = createHost({ session: 'cut', sink: await openJsonlSink(path), defaultDecision: 'allow' });
    host.tools.register(
      defineTool({
        name: 'look',
        description: 'Looks.',
        idempotent: true,
        input: z.object({ at: z.string() }),
        execute: ({ at }) => ({ saw: at }),
      }),
    );
    await resumeSession(host, path);
    await host.close();
    const run = await runDsh(['log', path, '--no-color'], { cwd: dir, home: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/session cut · 11 events · 1 step · 2 calls\n/);
    expect(run.stdout).toContain('step cut by a crash (the resume answered its calls)');
    expect(run.stdout).toMatch(/✔ look \[a2\] ok/);
    expect(run.stdout).not.toContain('no end for this step');
  });
});

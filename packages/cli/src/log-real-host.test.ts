import { join } from 'node:path';
import { type AnySessionEvent, createHost, defineTool, jsonlSink, z } from '@deepseek-ai/dsh-core';
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
    expect(run.stdout).toMatch(/session agents · \d+ events · 2 steps \(guessed: the log marks none\) · 2 calls · 2 sub-calls/);
    expect(run.stdout).toMatch(
      /✔ task \[task-1\] ok[^\n]*\n(?:[^\n]*\n)*? {4}✔ look \[task-1:agent:0\] ok[^\n]*\n(?:[^\n]*\n)*? {4}✔ look \[task-1:agent:1\] ok/,
    );
    expect(run.stdout).toMatch(/Step 2 [^\n]*\n✔ look \[look-1\] ok/);
    const json = JSON.parse((await runDsh(['log', path, '--json'], { cwd: dir, home: dir })).stdout) as { steps: { calls: CallJson[] }[] };
    expect(json.steps[0]?.calls[0]?.children.map((c) => c.id)).toEqual(['task-1:agent:0', 'task-1:agent:1']);
  });
});

describe('dsh log counts on a log that marks no steps', () => {
  it('counts two runSteps of 6 and 2 calls (ids reused, as providers number them) as 8 calls and says the steps are guessed', async () => {
    const dir = scratchDir();
    const path = join(dir, 'steps.jsonl');
    const host = createHost({ session: 'steps', sink: jsonlSink(path), defaultDecision: 'allow' });
    host.tools.register(
      defineTool({ name: 'echo', description: 'Echoes.', input: z.object({ t: z.string() }), execute: ({ t }) => ({ t }) }),
    );
    await host.runStep({ calls: Array.from({ length: 6 }, (_, i) => ({ id: `call_${i}`, name: 'echo', args: { t: `a${i}` } })) });
    await host.runStep({ calls: Array.from({ length: 2 }, (_, i) => ({ id: `call_${i}`, name: 'echo', args: { t: `b${i}` } })) });
    await host.close();
    const run = await runDsh(['log', path, '--no-color'], { cwd: dir, home: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/session steps · 16 events · \d+ steps \(guessed: the log marks none\) · 8 calls\n/);
  });
});

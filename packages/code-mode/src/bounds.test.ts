import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { definePlugin, z } from '@deepseek-ai/dsh-core';
import { describe, expect, it } from 'vitest';
import { codeHost, errorOf, okOutput, wellFormed } from './fixtures/kit.js';

/** Total CPU time of this process (every thread, the guest worker's included), in ms. */
function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Records the host's event loop while `work` runs: the longest gap between 5 ms timer ticks. */
async function watchHostLoop<T>(work: () => Promise<T>): Promise<{ value: T; longestGapMs: number; elapsedMs: number }> {
  const ticks: number[] = [];
  const started = performance.now();
  ticks.push(started);
  const timer = setInterval(() => ticks.push(performance.now()), 5);
  try {
    const value = await work();
    ticks.push(performance.now());
    let longestGapMs = 0;
    for (let i = 1; i < ticks.length; i++) longestGapMs = Math.max(longestGapMs, (ticks[i] ?? 0) - (ticks[i - 1] ?? 0));
    return { value, longestGapMs, elapsedMs: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

const BIGINT_LOOP = 'let x = (1n << 100000n) - 1n; for (;;) x * x;';

describe('run_code bounds: time', () => {
  it('keeps the host event loop turning during one long BigInt operation, and stops it at its CPU budget', async () => {
    const t = await codeHost({ cpuTimeoutMs: 500, timeoutMs: 600_000 });
    // What one 100,000-bit multiply costs on this machine, in CPU time (an upper bound: the run's overhead is in it).
    const calibration = await codeHost({ cpuTimeoutMs: 600_000, timeoutMs: 600_000 });
    const cpuBefore = processCpuMs();
    okOutput(
      await calibration.call('run_code', { code: 'let x = (1n << 100000n) - 1n, y; for (let i = 0; i < 20; i++) y = x * x; return 1;' }),
    );
    const perMultiplyMs = (processCpuMs() - cpuBefore) / 20;

    const cpuAtStart = processCpuMs();
    const watched = await watchHostLoop(() => t.call('run_code', { code: BIGINT_LOOP }));
    const cpuUsedMs = processCpuMs() - cpuAtStart;
    const error = errorOf(watched.value);
    // Stopped by the CPU budget, not the wall-clock deadline (ten minutes away).
    expect(error.code).toBe('PROGRAM_TIMEOUT');
    expect(error.message).toContain('computed for more than 500 ms');
    // QuickJS consults its interrupt handler once per 10,000 loop iterations: a guest on the host's thread
    // could only be stopped after 10,000 multiplies, blocking the host all along. In CPU time (so the
    // verdict holds on any machine, loaded or not) the run ended long before that.
    expect(cpuUsedMs).toBeLessThan((10_000 * perMultiplyMs) / 4);
    // The host's timers kept firing while the guest computed: no stall came near the run's own length
    // (a guest on the host thread makes the whole run one stall). The run lasts at least its 500 ms of
    // CPU time, so this bound is met by any event loop that turns, however loaded the machine. How short
    // the host's delays are (p99 < 50 ms) is a measure of speed, so `pnpm bench` prints it, not this test:
    // here a p99 compared with an idle run's flipped whenever the machine's load changed between the two.
    expect(watched.longestGapMs).toBeLessThan(watched.elapsedMs / 2);
    // The worker that was terminated is replaced: the next run works.
    expect(okOutput(await t.call('run_code', { code: 'return "next";' })).result).toBe('next');
    wellFormed(t);
  });

  const canPin = process.platform === 'linux' && existsSync('/usr/bin/taskset');
  it.skipIf(!canPin)('counts the CPU budget in CPU time, so a guest starved by a loaded machine is not stopped early', async (context) => {
    const t = await codeHost({ cpuTimeoutMs: 60_000 });
    const work = (n: number) => `let s = 0; for (let i = 0; i < ${n}; i++) s = (s + i * 7) % 1000003; return s;`;
    // Size the work to about 150 ms of CPU on this machine.
    let before = processCpuMs();
    okOutput(await t.call('run_code', { code: work(200_000) }));
    const n = Math.max(200_000, Math.round((200_000 * 150) / Math.max(1, processCpuMs() - before)));
    before = processCpuMs();
    okOutput(await t.call('run_code', { code: work(n) }));
    const needMs = processCpuMs() - before;

    // Now the same work with a budget of twice what it needs, on one CPU shared with four busy processes:
    // it gets at most a fifth of that CPU, so it takes five times its CPU time or more in wall time. A
    // budget of elapsed time stops it; a budget of CPU time does not, however loaded the machine is.
    const budgeted = await codeHost({ cpuTimeoutMs: Math.ceil(needMs * 2) + 20 });
    okOutput(await budgeted.call('run_code', { code: 'return 0;' }));
    const mask =
      execFileSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' })
        .trim()
        .split(' ')
        .pop() ?? 'ffffffff';
    const hogs = [0, 1, 2, 3].map(() => spawn('taskset', ['-c', '0', process.execPath, '-e', 'for (;;) {}'], { stdio: 'ignore' }));
    try {
      try {
        execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
      } catch {
        // A container that forbids changing affinity: the load cannot be made, so there is nothing to show.
        context.skip();
      }
      const outcome = await budgeted.call('run_code', { code: work(n) });
      expect(outcome.status).toBe('ok');
    } finally {
      for (const hog of hogs) hog.kill('SIGKILL');
      execFileSync('taskset', ['-a', '-p', mask, String(process.pid)], { stdio: 'ignore' });
    }
  });

  it('checks the wall-clock deadline between calls to a tool that settles without I/O', async () => {
    const t = await codeHost({ timeoutMs: 300, maxCalls: 1_000_000 });
    const error = errorOf(await t.call('run_code', { code: 'for (;;) { try { await tools.echo({ value: 1 }); } catch {} }' }));
    expect(error.code).toBe('PROGRAM_TIMEOUT');
    expect(error.message).toContain('did not finish within 300 ms');
  });
});

describe('run_code bounds: data and events', () => {
  it('ends a run whose calls move more than maxCallDataChars', async () => {
    const t = await codeHost({ maxCallDataChars: 20_000 });
    const code = 'const s = "x".repeat(3000); let n = 0;\nfor (;;) { await tools.echo({ value: s }); n++; console.log(n); }';
    const error = errorOf(await t.call('run_code', { code }));
    expect(error.code).toBe('CALL_DATA_LIMIT');
    expect(error.message).toContain('20000 characters');
    // Each call moves about 6,000 characters (its arguments and its answer): the fourth passes the cap.
    expect(error.data.logs).toBe('1\n2\n3');
    expect(error.data.calls).toHaveLength(4);
    wellFormed(t);
  });

  it('bounds the flood of megabyte calls from the issue', async () => {
    const t = await codeHost({ timeoutMs: 600_000, maxCallDataChars: 20_000_000 });
    const error = errorOf(await t.call('run_code', { code: "const t = 'x'.repeat(990000); for (;;) await tools.echo({ value: t })" }));
    expect(error.code).toBe('CALL_DATA_LIMIT');
    // About 1,980,000 characters a call, arguments and answer.
    expect(error.data.calls.length + (error.data.callsOmitted ?? 0)).toBeLessThanOrEqual(11);
  });

  it('logs at most maxCancelledEvents cancellations per run and summarises the rest in one event', async () => {
    const t = await codeHost({}, { retainEvents: 100_000 });
    const code = 'for (let i = 0; i < 20000; i++) tools.echo({ value: i });\nreturn "returned";';
    const output = okOutput(await t.call('run_code', { code }, 'flood'));
    expect(output.result).toBe('returned');
    // 10,000 calls were queued (maxCalls), the other 10,000 refused by the guest and only counted.
    expect(output.calls).toHaveLength(100);
    expect(output.callsOmitted).toBe(19_900);
    const events = wellFormed(t);
    const cancelled = events.filter((e) => e.type === 'code-mode/call-cancelled');
    expect(cancelled).toHaveLength(100);
    const dropped = events.filter((e) => e.type === 'code-mode/events-dropped');
    expect(dropped).toHaveLength(1);
    const summary = dropped[0]?.data as {
      type: string;
      dropped: number;
      reasons: Record<'program-ended' | 'run-stopped' | 'after-end', number>;
    };
    expect(summary.type).toBe('code-mode/call-cancelled');
    // Every queued call but the one in flight was cancelled when the program returned.
    expect(summary.dropped + cancelled.length).toBeGreaterThanOrEqual(9_999 - 1);
    // The call just taken off the queue when the program returned counts as stopped, not ended.
    expect(summary.reasons['after-end']).toBe(0);
    expect(summary.reasons['program-ended'] + summary.reasons['run-stopped']).toBe(summary.dropped);
    expect(summary.reasons['run-stopped']).toBeLessThanOrEqual(1);
    expect(events.length).toBeLessThan(1_000);
  });
});

describe('run_code bounds: nesting', () => {
  it('bounds the depth of run_code reached through tools that start steps of their own', async () => {
    const nest = definePlugin({
      name: 'nest',
      version: '1.0.0',
      register(host) {
        host.tools.register({
          name: 'nest',
          description: 'Runs a fresh step whose run_code program calls nest again.',
          input: z.object({ level: z.number() }),
          execute: async ({ level }) => {
            const code = `return await tools.nest({ level: ${level + 1} });`;
            const { results } = await host.runStep({ calls: [{ id: `nest-${level}`, name: 'run_code', args: { code } }] });
            return results[0]?.outcome ?? null;
          },
        });
      },
    });
    const t = await codeHost({ maxDepth: 3 }, {}, [nest]);
    const outcome = await t.call('run_code', { code: 'return await tools.nest({ level: 1 });' }, 'top');
    const runs = t.events().filter((e) => e.type === 'tool/result' && (e.data as { name?: string }).name === 'run_code');
    const codes = runs.map((e) => {
      const o = (e.data as { outcome: { status: string; error?: { code: string } } }).outcome;
      return o.status === 'error' ? o.error?.code : o.status;
    });
    // The top run, two nested ones, and the fourth refused.
    expect(codes.filter((c) => c === 'RUN_TOO_DEEP')).toHaveLength(1);
    expect(runs).toHaveLength(4);
    expect(outcome.status).toBe('ok');
  });
});

import { callOf, stepOf } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { codeHost, errorOf, okOutput, wellFormed } from './fixtures/kit.js';
import type { AnswerItem, GuestConfig, GuestReport, WorkerMessage } from './internal/guest-protocol.js';
import { GuestHandoff, HANDOFF_BYTES, type HandoffCommand, HostHandoff } from './internal/handoff-channel.js';
import { GuestWorker, type HandoffMode } from './internal/worker-pool.js';

const MIB = 1024 * 1024;
const TRICKY = 'a\u0000\ud800b\udc00c😀é';

describe('the shared-memory hand-off of a run', () => {
  it('carries answers and reports unchanged, NUL and lone surrogates included, and refuses what does not fit', async () => {
    let reported: (report: GuestReport) => void = () => undefined;
    const host = new HostHandoff((report) => reported(report));
    const guest = new GuestHandoff(host.buffer);
    const items: AnswerItem[] = [
      [0, true, TRICKY],
      [1, false, '{"code":"NOPE"}'],
      [2, true, ''],
    ];
    expect(host.answer(items)).toBe(true);
    // The command is already written, so the worker's wait returns at once.
    expect(guest.next()).toEqual({ kind: 'answers', items });

    const report = new Promise<GuestReport>((resolve) => {
      reported = resolve;
    });
    host.expectReport();
    expect(guest.report({ t: 'report', outbox: `echo\n${TRICKY}`, dropped: 3, warm: true })).toBe(true);
    expect(await report).toEqual({ t: 'report', outbox: `echo\n${TRICKY}`, dropped: 3, warm: true });

    // Too large for the buffer, or the end of the program: the port carries them.
    expect(host.answer([[3, true, 'x'.repeat(HANDOFF_BYTES / 2)]])).toBe(false);
    expect(guest.report({ t: 'report', outbox: 'x'.repeat(HANDOFF_BYTES / 2), dropped: 0 })).toBe(false);
    expect(guest.report({ t: 'report', outbox: '', dropped: 0, end: { kind: 'done', text: '1', totalChars: 1 } })).toBe(false);
    host.toPort();
    expect(guest.next()).toEqual({ kind: 'port' });

    host.close();
    expect(guest.next()).toEqual({ kind: 'leave' });
    // Closed: nothing more is written, and a worker that looks again leaves again.
    expect(host.answer([[4, true, '1']])).toBe(false);
    expect(guest.next()).toEqual<HandoffCommand>({ kind: 'leave' });
  });

  it('gives every run its own buffer', () => {
    const first = new HostHandoff(() => undefined);
    first.answer([[0, true, '"from the run before"']]);
    const second = new HostHandoff(() => undefined);
    expect(second.buffer).not.toBe(first.buffer);
    expect(new Uint8Array(second.buffer).every((byte) => byte === 0)).toBe(true);
  });
});

describe('a guest worker driven through each hand-off', () => {
  const config: GuestConfig = {
    names: ['echo'],
    maxArgsChars: 1 * MIB,
    maxLogChars: 1000,
    maxResultChars: 1000,
    maxErrorChars: 1000,
    maxCalls: 100,
  };
  // Answers from tiny to larger than the buffer, one with a console line before it, and a batch of three.
  const program = `
    const got = [];
    got.push(await tools.echo({ value: ${JSON.stringify(TRICKY)} }));
    got.push((await tools.echo({ value: "x".repeat(${HANDOFF_BYTES}) })).length);
    console.log("between");
    got.push(await tools.echo({ value: "after the log" }));
    got.push(await Promise.all([1, 2, 3].map((value) => tools.echo({ value }))));
    return got;`;

  /** Runs `program` in a worker of `mode`, answering each call with its own arguments' value; resolves with the end. */
  async function runEchoing(worker: GuestWorker): Promise<{ end: GuestReport['end']; logs: string[] }> {
    const logs: string[] = [];
    let index = 0;
    const end = new Promise<GuestReport['end']>((resolve, reject) => {
      worker.attach({
        message: (message: WorkerMessage) => {
          if (message.t === 'log') logs.push(message.line);
          if (message.t !== 'report') return;
          if (message.end !== undefined) return resolve(message.end);
          const outbox = message.outbox.split('\n');
          const items: AnswerItem[] = [];
          for (let at = 0; at < outbox.length; at += 2) {
            const args = JSON.parse(outbox[at + 1] ?? 'null') as { value: unknown };
            items.push([index++, true, JSON.stringify(args.value)]);
          }
          worker.post({ t: 'answers', items });
        },
        exit: (exit) => reject(new Error(exit.message)),
      });
    });
    worker.post({ t: 'start', code: program, config });
    return { end: await end, logs };
  }

  it.each<HandoffMode>(['shared', 'port'])('gives the program the same answers with the %s hand-off', async (mode) => {
    const worker = new GuestWorker(mode);
    try {
      worker.prepare(64 * MIB, config);
      await worker.ready();
      await worker.clock;
      const { end, logs } = await runEchoing(worker);
      expect(end).toMatchObject({ kind: 'done' });
      expect(JSON.parse((end as { text: string }).text)).toEqual([TRICKY, HANDOFF_BYTES, 'after the log', [1, 2, 3]]);
      expect(logs).toEqual(['between']);
      worker.detach();
      // Back in its event loop after the run: it prepares the next instance.
      worker.prepare(64 * MIB, config, 'end');
      await worker.ready();
    } finally {
      worker.terminate();
    }
  });

  it('terminates a worker that waits in Atomics.wait for an answer', async () => {
    const worker = new GuestWorker('shared');
    worker.prepare(64 * MIB, config);
    await worker.ready();
    const exited = new Promise<void>((resolve) => {
      worker.attach({
        message: (message: WorkerMessage) => {
          // The program waits for its first call's answer: the worker now blocks on the hand-off.
          if (message.t === 'report' && message.outbox !== '') worker.terminate();
        },
        exit: () => undefined,
      });
      const poll = setInterval(() => {
        if (worker.exited) {
          clearInterval(poll);
          resolve();
        }
      }, 5);
    });
    worker.post({ t: 'start', code: 'await tools.echo({ value: 1 }); return 1;', config });
    await exited;
    expect(worker.exited).toBe(true);
  });
});

describe('run_code while the guest waits for an answer', () => {
  it('ends a run cancelled while the guest waits, and the worker serves the next run', async () => {
    const t = await codeHost();
    const controller = new AbortController();
    const started = new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (t.probe.started.includes('waiting')) {
          clearInterval(timer);
          resolve();
        }
      }, 5);
    });
    const code = 'await tools.add({ a: 1, b: 2 });\nawait tools.slow({ ms: 600000, label: "waiting" });\nreturn 1;';
    const step = t.host.runStep(stepOf(callOf('run_code', { code }, 'cancelled')), { signal: controller.signal });
    await started;
    controller.abort();
    const { results } = await step;
    expect(results[0]?.outcome).toMatchObject({ status: 'error', error: { code: 'ABORTED' } });
    expect(t.probe.aborted).toEqual(['waiting']);
    wellFormed(t);
    const next = 'let s = 0;\nfor (let i = 0; i < 20; i++) s += (await tools.add({ a: i, b: 1 })).sum;\nreturn s;';
    expect(okOutput(await t.call('run_code', { code: next })).result).toBe(210);
  });

  it('does not count the wait for a slow tool against the CPU budget', async () => {
    // The budget is small, the wait long: a guest that used CPU while it waited would be stopped.
    const t = await codeHost({ cpuTimeoutMs: 100 });
    const code = 'for (let i = 0; i < 3; i++) await tools.slow({ ms: 150, label: "wait" + i });\nreturn "waited";';
    expect(okOutput(await t.call('run_code', { code })).result).toBe('waited');
  });

  it('still stops at the wall-clock deadline while the guest waits', async () => {
    const t = await codeHost({ timeoutMs: 300 });
    const code = 'await tools.add({ a: 1, b: 2 });\nawait tools.slow({ ms: 600000, label: "stuck" });\nreturn 1;';
    expect(errorOf(await t.call('run_code', { code })).code).toBe('PROGRAM_TIMEOUT');
    // The next program runs. On a loaded machine the replacement worker's start may itself outlast
    // 300 ms, so a timeout is tried again; any other answer fails, and the test's timeout bounds it.
    for (;;) {
      const next = await t.call('run_code', { code: 'return (await tools.add({ a: 2, b: 2 })).sum;' });
      if (next.status === 'error' && next.error.code === 'PROGRAM_TIMEOUT') continue;
      expect(okOutput(next).result).toBe(4);
      break;
    }
  });
});

// The guest's share of a run and of a sub-call, measured on this thread with the package's own internals
// (the same code the worker runs), so the bench can print where each microsecond of a run goes.
import { Worker } from 'node:worker_threads';
import { GuestBridge } from '../dist/internal/guest-bridge.js';
import { GuestSession } from '../dist/internal/guest-session.js';
import { bridgeLimits, disposeInstance, ListenerRelay, prepareInstance } from '../dist/internal/prepared-instance.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const MIB = 1024 * 1024;

/** The config a run of `names` gets with the default options. */
export const configFor = (names) => ({
  names,
  maxArgsChars: 1_000_000,
  maxLogChars: 16_384,
  maxResultChars: 65_536,
  maxErrorChars: 4096,
  maxCalls: 10_000,
});

/**
 * What building an instance costs, and what a start in it costs once built, in ms (medians of `runs`):
 * `build` (WebAssembly instance, memory, runtime, context), `install` (the bootstrap), both done ahead
 * by the pool; `start` (compile `return 1`, run it, collect), what a warm run pays in the guest.
 */
export async function instanceStages(names, runs = 15) {
  const config = configFor(names);
  const build = [];
  const install = [];
  const start = [];
  for (let i = 0; i < runs; i += 1) {
    let t = performance.now();
    const bare = await prepareInstance(64 * MIB, undefined);
    build.push(performance.now() - t);
    const bridge = new GuestBridge(bare.sandbox, bridgeLimits(config), new ListenerRelay());
    t = performance.now();
    bridge.install(config);
    install.push(performance.now() - t);
    bridge.dispose();
    disposeInstance(bare);
    const instance = await prepareInstance(64 * MIB, config);
    const session = new GuestSession(instance, new Int32Array(new SharedArrayBuffer(4)), config, () => undefined);
    t = performance.now();
    const report = await session.start('return 1;');
    start.push(performance.now() - t);
    if (report.end?.kind !== 'done' || report.warm !== true) throw new Error(`a warm start failed: ${JSON.stringify(report)}`);
    session.dispose();
  }
  return { build: median(build), install: median(install), start: median(start) };
}

/** The guest's side of one no-op sub-call in µs: deliver the answer, run the program to its next call, collect it. */
export async function guestPerCall(calls = 2000) {
  const config = configFor(['noop']);
  const instance = await prepareInstance(64 * MIB, config);
  const session = new GuestSession(instance, new Int32Array(new SharedArrayBuffer(4)), config, () => undefined);
  let report = await session.start(`let s = 0;\nfor (let i = 0; i < ${calls}; i++) s += (await tools.noop({ n: i })).n;\nreturn s;`);
  const times = [];
  for (let i = 0; i < calls; i += 1) {
    if (report.outbox === '') throw new Error(`the program made no call: ${JSON.stringify(report)}`);
    const t = performance.now();
    report = session.answer([[i, true, `{"n":${i}}`]]);
    times.push(performance.now() - t);
  }
  session.dispose();
  return median(times) * 1000;
}

/** A bare `postMessage` round trip to a worker that echoes, in µs per round trip (median of batches). */
export async function echoRoundTrip(trips = 1000, batches = 5) {
  const echo = new Worker(
    "const { parentPort } = require('node:worker_threads'); parentPort.on('message', (m) => parentPort.postMessage(m));",
    { eval: true },
  );
  await new Promise((resolve) => echo.once('online', resolve));
  const perTrip = [];
  for (let b = 0; b < batches; b += 1) {
    const t = performance.now();
    for (let i = 0; i < trips; i += 1) {
      echo.postMessage({ t: 'answers', items: [[i, true, '{"n":1}']] });
      await new Promise((resolve) => echo.once('message', resolve));
    }
    perTrip.push(((performance.now() - t) * 1000) / trips);
  }
  await echo.terminate();
  return median(perTrip);
}

/**
 * A bare round trip through code mode's shared-memory hand-off (`handoff-channel.ts`), in µs: the host
 * writes a one-call answer and wakes the worker (`Atomics.notify`), the worker, waiting in `Atomics.wait`,
 * writes a one-call report and wakes the host, waiting with `Atomics.waitAsync`. Median of batches.
 */
export async function handoffRoundTrip(trips = 1000, batches = 5) {
  const { HostHandoff } = await import('../dist/internal/handoff-channel.js');
  let onReport = () => undefined;
  const host = new HostHandoff((report) => onReport(report));
  const url = new URL('../dist/internal/handoff-channel.js', import.meta.url).href;
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
    import(workerData.url).then(({ GuestHandoff }) => {
      const guest = new GuestHandoff(workerData.buffer);
      guest.report({ t: 'report', outbox: '', dropped: 0 });
      while (guest.next().kind === 'answers') guest.report({ t: 'report', outbox: 'noop\\n{"n":1}', dropped: 0 });
    });`,
    { eval: true, workerData: { url, buffer: host.buffer } },
  );
  const reported = () =>
    new Promise((resolve) => {
      onReport = resolve;
      host.expectReport();
    });
  await reported();
  const perTrip = [];
  for (let b = 0; b < batches; b += 1) {
    const t = performance.now();
    for (let i = 0; i < trips; i += 1) {
      const report = reported();
      host.answer([[i, true, '{"n":1}']]);
      await report;
    }
    perTrip.push(((performance.now() - t) * 1000) / trips);
  }
  host.close();
  await worker.terminate();
  return median(perTrip);
}

import { describe, expect, it } from 'vitest';
import { codeHost, okOutput } from './fixtures/kit.js';
import type { GuestConfig, GuestReport, WorkerMessage } from './internal/guest-protocol.js';
import { type GuestWorker, WorkerPool } from './internal/worker-pool.js';

const MIB = 1024 * 1024;

/**
 * Everything a program could leave behind: globals, changed built-ins and prototypes, jobs still queued,
 * and an answer in the run's shared-memory hand-off.
 */
const POLLUTE = `
await tools.echo({ value: 'from the run before' });
globalThis.leaked = 'from the run before';
var leakedVar = 1;
Object.prototype.polluted = 'yes';
Array.prototype.push = function () { return 'hijacked'; };
JSON.stringify = () => 'hijacked';
Object.defineProperty(globalThis, 'sticky', { value: 1, configurable: false });
// The guest has no timers; jobs it leaves queued are the closest thing, and one that ran later would write a global.
if (typeof setTimeout === 'function') setTimeout(() => { globalThis.timerRan = true; }, 0);
let chain = Promise.resolve();
for (let i = 0; i < 5; i++) chain = chain.then(() => { globalThis.jobRan = i; });
new Promise(() => {}).then(() => { globalThis.neverRan = true; });
Promise.prototype.then = function () { return 'hijacked'; };
return 'polluted';`;

/** What a clean instance shows; the same in every run. */
const INSPECT = `
const seen = {
  leaked: typeof leaked, leakedVar: typeof leakedVar, polluted: ({}).polluted, sticky: typeof sticky,
  timerRan: typeof timerRan, jobRan: typeof jobRan, neverRan: typeof neverRan, setTimeout: typeof setTimeout,
};
const list = [];
list.push(1);
seen.push = list.length;
seen.json = JSON.stringify({ a: 1 });
seen.awaited = await Promise.resolve('native');
seen.echo = await tools.echo({ value: 'this run' });
return seen;`;

const CLEAN = {
  leaked: 'undefined',
  leakedVar: 'undefined',
  polluted: undefined,
  sticky: 'undefined',
  timerRan: 'undefined',
  jobRan: 'undefined',
  neverRan: 'undefined',
  setTimeout: 'undefined',
  push: 1,
  json: '{"a":1}',
  awaited: 'native',
  echo: 'this run',
};

describe('run_code: the pool of prepared instances', () => {
  it('never lets a run see the globals, prototypes or queued jobs of the run before it, in the same host or another', async () => {
    const a = await codeHost();
    const b = await codeHost();
    expect(okOutput(await a.call('run_code', { code: POLLUTE })).result).toBe('polluted');
    // Back to back, then after the pool has had time to prepare: the instance comes from the same worker either way.
    expect(okOutput(await a.call('run_code', { code: INSPECT })).result).toEqual(CLEAN);
    expect(okOutput(await a.call('run_code', { code: POLLUTE })).result).toBe('polluted');
    // Another host with the same tools and options: its run takes the instance prepared after host a's run.
    expect(okOutput(await b.call('run_code', { code: INSPECT })).result).toEqual(CLEAN);
    expect(okOutput(await b.call('run_code', { code: POLLUTE })).result).toBe('polluted');
    expect(okOutput(await a.call('run_code', { code: INSPECT })).result).toEqual(CLEAN);
  });

  it('keeps a run with other options from an instance prepared for the previous one', async () => {
    const a = await codeHost();
    const narrow = await codeHost({ tools: ['echo'], maxCalls: 7 });
    expect(okOutput(await a.call('run_code', { code: POLLUTE })).result).toBe('polluted');
    const code = `${INSPECT.replace('return seen;', '')}\nseen.tools = Object.keys(tools);\nreturn seen;`;
    expect(okOutput(await narrow.call('run_code', { code })).result).toEqual({ ...CLEAN, tools: ['echo'] });
    const calls =
      'const r = []; for (let i = 0; i < 8; i++) { try { await tools.echo({ value: i }); r.push("ok"); } catch (e) { r.push(e.code); } } return r;';
    expect(okOutput(await narrow.call('run_code', { code: calls })).result).toEqual([...Array(7).fill('ok'), 'TOO_MANY_CALLS']);
  });
});

describe('the worker pool', () => {
  const config = (names: string[]): GuestConfig => ({
    names,
    maxArgsChars: 1000,
    maxLogChars: 1000,
    maxResultChars: 1000,
    maxErrorChars: 1000,
    maxCalls: 10,
  });

  /** Runs `return 1` in a worker taken from `pool`; resolves with the start's report. */
  async function start(worker: GuestWorker, runConfig: GuestConfig): Promise<GuestReport> {
    const report = new Promise<GuestReport>((resolve, reject) => {
      worker.attach({
        message: (message: WorkerMessage) => {
          if (message.t === 'report') resolve(message);
        },
        exit: (exit) => reject(new Error(exit.message)),
      });
    });
    worker.post({ t: 'start', code: 'return 1;', config: runConfig });
    return report;
  }

  it('hands a run an instance with its bootstrap installed ahead for its config, and a cold one when it was prepared for another', async () => {
    const pool = new WorkerPool();
    const echo = config(['echo']);
    const first = await pool.take(64 * MIB, echo);
    expect(await start(first, echo)).toMatchObject({ warm: true, end: { kind: 'done', text: '1' } });
    pool.release(first, 64 * MIB, true, echo);

    const second = await pool.take(64 * MIB, echo);
    expect(second).toBe(first);
    expect(await start(second, echo)).toMatchObject({ warm: true, end: { kind: 'done', text: '1' } });
    pool.release(second, 64 * MIB, true, echo);

    // Prepared for echo, taken for other tools: prepared again for them before the run starts.
    const other = config(['echo', 'add']);
    const third = await pool.take(64 * MIB, other);
    expect(third).toBe(first);
    expect(await start(third, other)).toMatchObject({ warm: true, end: { kind: 'done', text: '1' } });
    pool.release(third, 64 * MIB, true, other);

    // Taken without saying for what, and run with another config: the worker builds a new instance and installs it then.
    const fourth = await pool.take(64 * MIB);
    expect(await start(fourth, echo)).toMatchObject({ warm: false, end: { kind: 'done', text: '1' } });
    fourth.terminate();
  });
});

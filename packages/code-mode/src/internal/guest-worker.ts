import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { configKey, type GuestConfig, type GuestReport, type HostMessage, type WorkerMessage } from './guest-protocol.js';
import { GuestSession } from './guest-session.js';
import { errorMessage as messageOf } from './guest-text.js';
import { GuestHandoff } from './handoff-channel.js';
import { disposeInstance, type PreparedInstance, prepareInstance } from './prepared-instance.js';
import { traceNow } from './run-trace.js';

// The entry of a guest worker thread. It holds one QuickJS instance made ahead for the next run (with
// the bootstrap installed for the config it expects), runs
// one program at a time, and answers each host message that enters the guest with one report. The host
// can stop it at any instant: the stop flag for the interrupt handler, or `worker.terminate()`.

const port = parentPort;
if (port === null) throw new Error('guest-worker runs only as a worker thread');
const stop = new Int32Array((workerData as { stop: SharedArrayBuffer }).stop);
const send = (message: WorkerMessage): void => port.postMessage(message);

let prepared: { memoryLimitBytes: number; instance: Promise<PreparedInstance> } | undefined;
let session: GuestSession | undefined;
/** The run's shared-memory hand-off, when the host gave one: between entries the worker waits on it. */
let handoff: GuestHandoff | undefined;
/** A console line was posted since the last report: the next report follows it on the port, so it cannot overtake it. */
let logged = false;

// The TypeScript stripper is loaded with the first instance, before the worker says it is ready: loaded
// during a run, its ~60 ms would count against that run's CPU budget.
let stripper: Promise<unknown> | undefined;

/** Builds the next instance and tells the host when it is ready (or why it is not). */
function prepare(memoryLimitBytes: number, config: GuestConfig | undefined): void {
  // One prepared for another cap or config and never used is freed.
  prepared?.instance.then(disposeInstance, () => undefined);
  const instance = prepareInstance(memoryLimitBytes, config);
  const key = config === undefined ? '' : configKey(config);
  prepared = { memoryLimitBytes, instance };
  stripper ??= import('sucrase').catch(() => undefined);
  Promise.all([instance, stripper]).then(
    () => send({ t: 'ready', memoryLimitBytes, key }),
    (error: unknown) => {
      prepared = undefined;
      send({ t: 'ready', memoryLimitBytes, key, failure: messageOf(error) });
    },
  );
}

async function start(code: string, config: GuestConfig, mark?: (stage: 'compiled' | 'ran') => void): Promise<GuestReport> {
  const ready = prepared;
  prepared = undefined;
  let instance: PreparedInstance;
  try {
    if (ready === undefined) throw new Error('no instance was prepared for this run');
    instance = await ready.instance;
    // Installed ahead for another config (the host re-prepares then, so only if it did not): a new instance.
    if (instance.installed !== undefined && instance.installed.key !== configKey(config)) {
      disposeInstance(instance);
      instance = await prepareInstance(ready.memoryLimitBytes, undefined);
    }
  } catch (error) {
    return { t: 'report', outbox: '', end: { kind: 'crashed', message: messageOf(error) }, dropped: 0 };
  }
  session = new GuestSession(instance, stop, config, (line) => {
    logged = true;
    send({ t: 'log', line });
  });
  return session.start(code, mark);
}

/** Runs a traced start: its report carries when the worker received it and how far it got when. */
async function tracedStart(code: string, config: GuestConfig, received: number): Promise<GuestReport> {
  const stages: [stage: 'received' | 'compiled' | 'ran' | 'reported', at: number][] = [['received', received]];
  const done = await start(code, config, (stage) => stages.push([stage, traceNow()]));
  stages.push(['reported', traceNow()]);
  return { ...done, stages };
}

// Messages are handled one at a time, in order: a start (which may await the TypeScript stripper) is
// finished before the answers that follow it are delivered.
let queue: Promise<void> = Promise.resolve();
port.on('message', (message: HostMessage) => {
  const received = message.t === 'start' && message.trace === true ? traceNow() : 0;
  queue = queue
    .then(() => handle(message, received))
    .catch((error: unknown) => {
      send({ t: 'report', outbox: '', end: { kind: 'crashed', message: messageOf(error) }, dropped: 0 });
    });
});

async function handle(message: HostMessage, received: number): Promise<void> {
  switch (message.t) {
    case 'prepare':
      prepare(message.memoryLimitBytes, message.config);
      return;
    case 'start':
      handoff = message.handoff === undefined ? undefined : new GuestHandoff(message.handoff);
      report(await (message.trace === true ? tracedStart(message.code, message.config, received) : start(message.code, message.config)));
      return;
    case 'answers':
      report(
        session === undefined
          ? { t: 'report', outbox: '', end: { kind: 'crashed', message: 'answers came for no run' }, dropped: 0 }
          : session.answer(message.items),
      );
      return;
    case 'end':
      handoff = undefined;
      session?.dispose();
      session = undefined;
      prepare(message.memoryLimitBytes, message.config);
      return;
  }
}

/**
 * Sends a report, then, while the run goes on and has a hand-off, waits on it for the host's answers
 * and enters the guest with them, report after report, without returning to the event loop. Answers
 * too large for the hand-off come by the port: the host says so, and the worker returns to take them.
 */
function report(first: GuestReport): void {
  let next = first;
  for (;;) {
    if (logged || handoff === undefined || !handoff.report(next)) send(next);
    logged = false;
    if (next.end !== undefined || handoff === undefined || session === undefined) return;
    const command = handoff.next();
    if (command.kind === 'port') return;
    if (command.kind === 'leave') {
      // The host writes nothing after this: the run's buffer is never waited on again.
      handoff = undefined;
      return;
    }
    next = session.answer(command.items);
  }
}

/** This thread's id as the kernel knows it (Linux), so the host can read its CPU time from /proc. */
function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isSafeInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

send({ t: 'hello', tid: threadId() });

// Inbox benchmarks: ratios against baselines measured in the same run; never fails.
// Run with `pnpm bench` (after a build). Rows:
//  1. a session page of 10,000 events against one of 1,000, rendered in Chromium (target < 10x:
//     rendering grows with the events, not faster);
//  2. the latency of an event from the host to an open stream, against a bare SSE echo server in this
//     process (target <= 1.5x), and the event-loop turns the inbox takes before writing it (target <= 2);
//  3. the server's RSS with 100 open sessions, each with a page streaming it.
import { createServer } from 'node:http';
import { createHost, defineTool, z } from '@deepseek-ai/dsh-core';
import { recordRatio, recordValue } from '../../../scripts/bench/report.mjs';
import { createInbox } from '../dist/index.js';

const pkg = '@deepseek-ai/dsh-inbox';
const MIB = 1024 * 1024;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A real host whose calls are allowed: each call logs `tool/call` then `tool/result`. */
async function hostWithEvents(session, events) {
  const host = createHost({ session, defaultDecision: 'allow' });
  host.tools.register(
    defineTool({ name: 'echo', description: 'Echoes.', input: z.object({ text: z.string() }), execute: (a) => `said ${a.text}` }),
  );
  let n = 0;
  while (host.events.list().length < events) {
    const calls = [];
    for (let i = 0; i < 50 && host.events.list().length + 2 * calls.length < events; i++) {
      calls.push({ id: `c${n}`, name: 'echo', args: { text: `line ${n}` } });
      n += 1;
    }
    if (calls.length === 0) break;
    await host.runStep({ calls });
  }
  return { host, lastCall: `c${n - 1}` };
}

// --- 1. page render: 10,000 events against 1,000 -------------------------------------------------
async function renderRatio() {
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    console.log('skip page render: playwright-core is not installed');
    return;
  }
  const inbox = createInbox();
  const url = await inbox.listen();
  const small = await hostWithEvents('small', 1_000);
  const large = await hostWithEvents('large', 10_000);
  inbox.attach(small.host);
  inbox.attach(large.host);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(url); // trades the token for the cookie
    const origin = new URL(url).origin;
    const timeOf = async (session, lastCall) => {
      await page.goto('about:blank');
      const t0 = performance.now();
      await page.goto(`${origin}/#${session}`);
      await page.locator(`[data-call="${lastCall}"]`).waitFor({ timeout: 300_000 });
      return performance.now() - t0;
    };
    const s = [];
    const l = [];
    // Alternated rounds, so load on the machine falls on both sides alike.
    for (let round = 0; round < 5; round++) {
      s.push(await timeOf('small', small.lastCall));
      l.push(await timeOf('large', large.lastCall));
    }
    recordRatio({
      pkg,
      label: 'session page of 10,000 events vs 1,000 (Chromium, median of 5)',
      ratio: median(l) / median(s),
      target: 10,
      rounds: 5,
      note: `(${median(s).toFixed(0)} ms vs ${median(l).toFixed(0)} ms)`,
    });
  } finally {
    await browser.close();
    await inbox.close();
  }
}

// --- 2. live latency against a bare SSE echo ------------------------------------------------------
/** Reads an SSE response; resolves each waiter when a chunk holding its marker arrives. */
function sseReader(res) {
  const waiters = new Map();
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (const [marker, resolve] of waiters) {
        if (buffer.includes(marker)) {
          waiters.delete(marker);
          resolve(performance.now());
        }
      }
      if (waiters.size === 0) buffer = '';
    }
  })();
  return { next: (marker) => new Promise((resolve) => waiters.set(marker, resolve)), cancel: () => reader.cancel() };
}

async function latency() {
  const SAMPLES = 300;
  // The baseline: an SSE server that writes each event as it is handed over, nothing else.
  const clients = new Set();
  const echo = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
    res.write(':\n\n');
    clients.add(res);
    res.on('close', () => clients.delete(res));
  });
  await new Promise((done) => echo.listen(0, '127.0.0.1', done));
  const bare = sseReader(await fetch(`http://127.0.0.1:${echo.address().port}/`));
  const send = (data) => {
    for (const res of clients) res.write(`data: ${JSON.stringify(data)}\n\n`);
  };

  const inbox = createInbox();
  const url = new URL(await inbox.listen());
  const host = createHost({ session: 'live' });
  host.events.define('bench/ping', z.object({ n: z.number() }));
  inbox.attach(host);
  const stream = await fetch(`${url.origin}/api/stream?session=live`, {
    headers: { Authorization: `Bearer ${url.searchParams.get('token')}` },
  });
  const live = sseReader(stream);

  // Event-loop turns between the host's event and the stream's write: counted with setImmediate.
  const turnsSeen = [];
  const bareTimes = [];
  const inboxTimes = [];
  for (let i = 0; i < SAMPLES; i++) {
    const m1 = `"n":${1_000_000 + i}`;
    const gotBare = bare.next(m1);
    const t0 = performance.now();
    send({ n: 1_000_000 + i });
    bareTimes.push((await gotBare) - t0);

    const m2 = `"n":${2_000_000 + i}`;
    const gotInbox = live.next(m2);
    let turns = 0;
    let counting = true;
    const tick = () => {
      if (!counting) return;
      turns += 1;
      setImmediate(tick);
    };
    setImmediate(tick);
    const t1 = performance.now();
    await host.events.emit('bench/ping', { n: 2_000_000 + i });
    inboxTimes.push((await gotInbox) - t1);
    counting = false;
    turnsSeen.push(turns);
  }
  // Bare SSE needs this many turns from write to the client's read in this process: the floor to subtract.
  const bareTurns = [];
  for (let i = 0; i < 50; i++) {
    const m = `"n":${3_000_000 + i}`;
    const got = bare.next(m);
    let turns = 0;
    let counting = true;
    const tick = () => {
      if (!counting) return;
      turns += 1;
      setImmediate(tick);
    };
    setImmediate(tick);
    send({ n: 3_000_000 + i });
    await got;
    counting = false;
    bareTurns.push(turns);
  }
  recordRatio({
    pkg,
    label: `event to an open stream vs a bare SSE echo (median of ${SAMPLES})`,
    ratio: median(inboxTimes) / median(bareTimes),
    target: 1.5,
    rounds: SAMPLES,
    note: `(${(median(bareTimes) * 1000).toFixed(0)} µs vs ${(median(inboxTimes) * 1000).toFixed(0)} µs)`,
  });
  recordValue({
    pkg,
    label: 'event-loop turns from the event to the stream, beyond a bare SSE write',
    value: Math.max(0, median(turnsSeen) - median(bareTurns)),
    unit: 'turns',
    target: 2,
    note: `(inbox ${median(turnsSeen)}, bare ${median(bareTurns)}, to the client's read)`,
  });
  await bare.cancel();
  await live.cancel();
  await inbox.close();
  await new Promise((done) => {
    echo.closeAllConnections();
    echo.close(done);
  });
}

// --- 3. memory with 100 open sessions -------------------------------------------------------------
async function memory() {
  const SESSIONS = 100;
  const EVENTS = 200;
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  const inbox = createInbox();
  const url = new URL(await inbox.listen());
  const auth = { Authorization: `Bearer ${url.searchParams.get('token')}` };
  const streams = [];
  for (let i = 0; i < SESSIONS; i++) {
    const { host } = await hostWithEvents(`s${i}`, EVENTS);
    inbox.attach(host);
    streams.push(sseReader(await fetch(`${url.origin}/api/stream?session=s${i}`, { headers: auth })));
  }
  globalThis.gc?.();
  const after = process.memoryUsage().rss;
  console.log(
    `info RSS with ${SESSIONS} open sessions of ${EVENTS} events, each streamed to a page: ${(after / MIB).toFixed(1)} MiB ` +
      `(+${((after - before) / MIB).toFixed(1)} MiB, ${((after - before) / SESSIONS / 1024).toFixed(0)} KiB a session; ` +
      'hosts, pages and server share this process)',
  );
  for (const s of streams) await s.cancel();
  await inbox.close();
}

await renderRatio();
await latency();
await memory();

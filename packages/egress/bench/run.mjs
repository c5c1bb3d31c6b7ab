// Egress proxy bench (issue 35 "Must hold"): a 50 MB download from a loopback server through the proxy
// vs direct (target <= 1.2x time), the proxy's peak RSS during those downloads (target < 64 MB), and 100
// concurrent CONNECTs through one proxy (all answered). Rows go through scripts/bench/report.mjs.
//
// The proxy runs in a child process (bench/proxy-child.mjs) so that its RSS is its own. Its design floor
// runs in a second child (bench/floor-relay-child.mjs): a bare Node process that answers CONNECT and
// relays two sockets, with no policy, records, core or TLS check. Direct, floor and proxy downloads
// alternate within rounds, so load on the machine hits them alike.
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from '../../../scripts/bench/interleave.mjs';
import { recordRatio, recordValue } from '../../../scripts/bench/report.mjs';
import { stableRatio } from '../../../scripts/bench/stable-ratio.mjs';

const pkg = 'egress';
const size = 50 * 1024 * 1024;
const concurrent = 100;
const chunk = Buffer.alloc(1024 * 1024, 0x61);
const mb = (bytes) => bytes / 1024 / 1024;

const origin = createServer((req, res) => {
  if (req.url === '/small') return res.end('ok');
  res.writeHead(200, { 'content-length': size });
  let sent = 0;
  const pump = () => {
    while (sent < size) {
      sent += chunk.length;
      if (!res.write(chunk)) return res.once('drain', pump);
    }
    res.end();
  };
  pump();
});
await new Promise((resolve) => origin.listen(0, '127.0.0.1', resolve));
const port = origin.address().port;

const dir = await mkdtemp(join(tmpdir(), 'egress-bench-'));

/** A relay child and a way to talk to it: `ask('reset' | 'report')` resolves with its answer. */
async function startChild(script, args) {
  const child = fork(new URL(script, import.meta.url), args);
  const ask = (message) => {
    const answer = new Promise((resolve) => child.once('message', resolve));
    if (message) child.send(message);
    return answer;
  };
  const ready = await ask();
  const stop = () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send('stop');
    return exited;
  };
  return { ready, ask, stop };
}

const proxySocket = join(dir, 'proxy.sock');
const floorSocket = join(dir, 'floor.sock');
const proxy = await startChild('./proxy-child.mjs', [proxySocket]);
const floor = await startChild('./floor-relay-child.mjs', [floorSocket, String(port)]);
const auth = `Basic ${Buffer.from(`${proxy.ready.token}:x`).toString('base64')}`;

/** Opens a connection (direct, or a CONNECT tunnel through the relay at `socketPath`) ready for HTTP. */
function open(socketPath) {
  return new Promise((resolve, reject) => {
    if (!socketPath) {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
      socket.once('error', reject);
      return;
    }
    const socket = connect({ path: socketPath });
    socket.once('error', reject);
    let head = '';
    const onData = (data) => {
      head += data.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (!head.startsWith('HTTP/1.1 200')) return reject(new Error(head));
      resolve(socket);
    };
    socket.on('data', onData);
    socket.write(`CONNECT origin.test:${port} HTTP/1.1\r\nHost: origin.test:${port}\r\nProxy-Authorization: ${auth}\r\n\r\n`);
  });
}

/** GETs a path over a fresh connection and resolves with the bytes received. */
async function fetchOver(socketPath, path) {
  const socket = await open(socketPath);
  return new Promise((resolve, reject) => {
    let bytes = 0;
    socket.on('data', (data) => {
      bytes += data.length;
    });
    socket.once('close', () => resolve(bytes));
    socket.once('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: origin.test\r\nConnection: close\r\n\r\n`);
  });
}

/** One 50 MB download, in ms of wall time (the target is time). */
const download = (socketPath) => async () => {
  const start = performance.now();
  const bytes = await fetchOver(socketPath, '/big');
  if (bytes < size) throw new Error(`short download: ${bytes} bytes`);
  return performance.now() - start;
};

/** 100 concurrent GETs, each over its own connection, in ms; counts those that got no answer. */
let unanswered = 0;
const many = (socketPath) => async () => {
  const start = performance.now();
  const results = await Promise.allSettled(Array.from({ length: concurrent }, () => fetchOver(socketPath, '/small')));
  unanswered += results.filter((r) => r.status === 'rejected' || r.value === 0).length;
  return performance.now() - start;
};

/**
 * Direct, floor and proxy downloads in one loop, in a rotating order within each round (so no side
 * always runs first), two passes of `rounds`: the ratios of proxy and floor to direct are the medians of
 * every round's ratio, each spread how far the two passes' medians were apart. Until the proxy's two
 * passes agree within 0.05, both are measured again with twice the rounds, up to 72 rounds in all (as
 * stable-ratio.mjs does for two sides). One loop keeps the floor and the row on the same stretch of load.
 */
async function downloadRatios(rounds) {
  const sides = [download(), download(floorSocket), download(proxySocket)];
  for (const side of sides) await side();
  for (;;) {
    const result = await downloadPasses(sides, rounds);
    if (result.proxy.spread <= 0.05 || rounds * 4 > 72) return result;
    rounds *= 2;
  }
}

async function downloadPasses(sides, rounds) {
  const passes = [];
  for (let p = 0; p < 2; p += 1) {
    const pass = { floor: [], proxy: [], ms: [[], [], []] };
    for (let i = 0; i < rounds; i += 1) {
      const ms = [];
      for (let k = 0; k < 3; k += 1) {
        const j = (i + k) % 3;
        ms[j] = await sides[j]();
        pass.ms[j].push(ms[j]);
      }
      pass.floor.push(ms[1] / ms[0]);
      pass.proxy.push(ms[2] / ms[0]);
    }
    passes.push(pass);
  }
  const of = (key) => ({
    ratio: median(passes.flatMap((p) => p[key])),
    spread: Math.abs(median(passes[0][key]) - median(passes[1][key])),
  });
  const ms = [0, 1, 2].map((j) => median(passes.flatMap((p) => p.ms[j])));
  return { floor: of('floor'), proxy: of('proxy'), ms, rounds: 2 * rounds };
}

const load = () => `load ${loadavg()[0].toFixed(1)}`;

await proxy.ask('reset');
await floor.ask('reset');
const downloads = await downloadRatios(9);
const proxyPeak = (await proxy.ask('report')).peakRss;
const floorPeak = (await floor.ask('report')).peakRss;

recordRatio({
  pkg,
  label: '50 MB download via proxy vs direct (wall time)',
  ratio: downloads.proxy.ratio,
  target: 1.2,
  spread: downloads.proxy.spread,
  rounds: downloads.rounds,
  floor: { value: downloads.floor.ratio, what: `a bare Node relay process, no core, spread ${downloads.floor.spread.toFixed(3)}` },
  note: `(medians: direct ${downloads.ms[0].toFixed(0)} ms, relay ${downloads.ms[1].toFixed(0)} ms, proxy ${downloads.ms[2].toFixed(0)} ms; ${load()})`,
});
recordValue({
  pkg,
  label: 'proxy process peak RSS during the 50 MB downloads',
  value: mb(proxyPeak),
  unit: 'MB',
  target: 64,
  floor: { value: mb(floorPeak), what: 'the bare relay process, same downloads' },
  note:
    `(idle ${mb(proxy.ready.baselineRss).toFixed(1)} MB with core loaded, +${mb(proxyPeak - proxy.ready.baselineRss).toFixed(1)} MB under load; ` +
    `bare relay idle ${mb(floor.ready.baselineRss).toFixed(1)} MB; ${load()})`,
});

const concurrentRatio = await stableRatio(many(), many(proxySocket), { rounds: 5, warmup: 1, maxRounds: 10 });
recordValue({
  pkg,
  label: `${concurrent} concurrent CONNECTs through one proxy: unanswered`,
  value: unanswered,
  unit: 'connections',
  target: 0,
  rounds: concurrentRatio.rounds,
  note: `(time ${concurrentRatio.ratio.toFixed(2)}x direct, spread ${concurrentRatio.spread.toFixed(3)}: direct ${concurrentRatio.base.toFixed(0)} ms, proxy ${concurrentRatio.ours.toFixed(0)} ms; ${load()})`,
});

await proxy.stop();
await floor.stop();
origin.close();
await rm(dir, { recursive: true, force: true });

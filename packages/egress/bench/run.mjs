// Egress proxy bench: a 50 MB download and 100 concurrent CONNECTs, each through the proxy
// and directly, measured in the same run. Prints ratios against the direct baseline.
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const size = 50 * 1024 * 1024;
const rounds = 5;
const concurrent = 100;
const chunk = Buffer.alloc(1024 * 1024, 0x61);

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
const socketPath = join(dir, 'proxy.sock');
const child = fork(new URL('./proxy-child.mjs', import.meta.url), [socketPath]);
const nextMessage = () => new Promise((resolve) => child.once('message', resolve));
const { token, baselineRss } = await nextMessage();
const auth = `Basic ${Buffer.from(`${token}:x`).toString('base64')}`;

/** Opens a connection (direct, or a CONNECT tunnel through the proxy) and resolves with a socket ready for HTTP. */
function open(viaProxy) {
  return new Promise((resolve, reject) => {
    if (!viaProxy) {
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
async function fetchOver(viaProxy, path) {
  const socket = await open(viaProxy);
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

async function timed(task) {
  const start = process.hrtime.bigint();
  const result = await task();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// Interleave direct and proxied rounds so that load on the machine hits both alike.
const direct = [];
const proxied = [];
child.send('reset');
await nextMessage();
for (let i = 0; i < rounds; i++) {
  const d = await timed(() => fetchOver(false, '/big'));
  const p = await timed(() => fetchOver(true, '/big'));
  if (d.result < size || p.result < size) throw new Error(`short download: ${d.result} / ${p.result} bytes`);
  direct.push(d.ms);
  proxied.push(p.ms);
}
child.send('report');
const { peakRss } = await nextMessage();

const all = (viaProxy) => Promise.all(Array.from({ length: concurrent }, () => fetchOver(viaProxy, '/small')));
const manyDirect = [];
const manyProxied = [];
for (let i = 0; i < rounds; i++) {
  manyDirect.push((await timed(() => all(false))).ms);
  const { ms, result } = await timed(() => all(true));
  if (result.some((bytes) => bytes === 0)) throw new Error('a concurrent CONNECT got no answer');
  manyProxied.push(ms);
}

const ratio = median(proxied) / median(direct);
const manyRatio = median(manyProxied) / median(manyDirect);
const rssMb = peakRss / 1024 / 1024;
const mark = (ok) => (ok ? 'ok' : 'MISSED');
console.log(
  `50 MB download     direct ${median(direct).toFixed(0)} ms, via proxy ${median(proxied).toFixed(0)} ms: ${ratio.toFixed(2)}x (target <= 1.20x) ${mark(ratio <= 1.2)}`,
);
console.log(
  `proxy peak RSS     ${rssMb.toFixed(1)} MB during the downloads (${(baselineRss / 1048576).toFixed(1)} MB idle with core loaded, +${((peakRss - baselineRss) / 1048576).toFixed(1)} MB under load) (target < 64 MB) ${mark(rssMb < 64)}`,
);
console.log(
  `${concurrent} concurrent     direct ${median(manyDirect).toFixed(0)} ms, via proxy ${median(manyProxied).toFixed(0)} ms: ${manyRatio.toFixed(2)}x, all ${concurrent} answered`,
);
console.log(`(medians of ${rounds} interleaved rounds; ratios are what to compare, the times depend on the machine)`);

child.send('stop');
await new Promise((resolve) => child.once('exit', resolve));
origin.close();
await rm(dir, { recursive: true, force: true });

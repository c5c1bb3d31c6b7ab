// The design floor of the proxy: a bare Node process (no core loaded) that answers a CONNECT with 200
// and relays the two sockets, with no policy, records, timers or TLS check. The download direction
// reads into one reused buffer, as the proxy's tunnels do (src/internal/destination-reader.ts), and
// writes each chunk before the next read: the least a Node relay in its own process costs.
import { connect, createServer } from 'node:net';

const [socketPath, originPort] = process.argv.slice(2);
let peakRss = 0;
const sample = () => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};
const timer = setInterval(sample, 20);
const server = createServer((client) => {
  let head = Buffer.alloc(0);
  const onData = (data) => {
    head = Buffer.concat([head, data]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    client.off('data', onData);
    client.pause();
    const buffer = Buffer.allocUnsafe(64 * 1024);
    const callback = (bytes) => {
      client.write(buffer.subarray(0, bytes), () => {
        if (client.writableLength === 0) upstream.resume();
      });
      return client.writableLength === 0;
    };
    const upstream = connect({ host: '127.0.0.1', port: Number(originPort), onread: { buffer, callback } }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      const rest = head.subarray(end + 4);
      if (rest.length > 0) upstream.write(rest);
      upstream.on('end', () => client.end());
      upstream.resume();
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
  };
  client.on('data', onData);
});
server.listen(socketPath, () => {
  sample();
  process.send({ baselineRss: peakRss });
});
process.on('message', (message) => {
  if (message === 'reset') {
    peakRss = process.memoryUsage().rss;
    process.send({ reset: true });
  } else if (message === 'report') {
    sample();
    process.send({ peakRss });
  } else if (message === 'stop') {
    clearInterval(timer);
    server.close();
    process.exit(0);
  }
});

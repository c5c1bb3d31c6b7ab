// The proxy under measurement, in its own process so that its RSS is its own.
import { startEgressProxy } from '../dist/index.js';

const socketPath = process.argv[2];
let peakRss = 0;
const sample = () => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};
const timer = setInterval(sample, 20);
const proxy = await startEgressProxy({
  socketPath,
  decide: () => 'allow',
  resolve: async () => ['127.0.0.1'],
  allowAddresses: ['127.0.0.1'],
  limits: { maxConnectionsPerCall: 1000, maxPendingConnections: 1000 },
});
const call = await proxy.openCall('bench');
sample();
process.send({ token: call.token, baselineRss: peakRss });
process.on('message', async (message) => {
  if (message === 'reset') {
    peakRss = process.memoryUsage().rss;
    process.send({ reset: true });
  } else if (message === 'report') {
    sample();
    process.send({ peakRss });
  } else if (message === 'stop') {
    clearInterval(timer);
    await proxy.close();
    process.exit(0);
  }
});

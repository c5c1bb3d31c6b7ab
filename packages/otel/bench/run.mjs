// Per-call pipeline cost with the three around-dispatch plugins (timeout, retry, otel)
// and no OpenTelemetry SDK, as a ratio to the bare pipeline measured in the same run.
// Budget (issue 5): at most 1.15. Run after `pnpm build`.
import { Cancellation, createHost, definePlugin, defineTool, z } from '@deepseek-ai/dsh-core';
import { otel } from '@deepseek-ai/dsh-otel';
import { retryPolicy } from '@deepseek-ai/dsh-retry-policy';
import { timeoutPolicy } from '@deepseek-ai/dsh-timeout-policy';
import { recordRatio } from '../../../scripts/bench/report.mjs';

const budget = 1.15;
const callsPerRound = 2_000;
const rounds = 15;

const read = defineTool({
  name: 'read_note',
  description: 'returns a short note (idempotent, so the retry policy engages)',
  input: z.object({ id: z.number() }),
  idempotent: true,
  timeoutMs: 30_000,
  execute: async (args) => ({ id: args.id, text: 'note' }),
});

async function hostWith(plugins) {
  const host = createHost({ defaultDecision: 'allow' });
  host.tools.register(read);
  for (const plugin of plugins) await host.use(plugin);
  return host;
}

let ids = 0;
async function round(host) {
  const start = performance.now();
  for (let i = 0; i < callsPerRound; i++) {
    ids += 1;
    const { results } = await host.runStep({ calls: [{ id: `c${ids}`, name: 'read_note', args: { id: i } }] });
    if (results[0]?.outcome.status !== 'ok') throw new Error(`call failed: ${JSON.stringify(results[0])}`);
  }
  return ((performance.now() - start) * 1000) / callsPerRound; // µs per call
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const bare = [];
const full = [];
// Fresh hosts per round keep the session logs equally short; rounds alternate so drift hits both.
await round(await hostWith([]));
await round(await hostWith([timeoutPolicy(), retryPolicy(), otel()]));
for (let r = 0; r < rounds; r++) {
  bare.push(await round(await hostWith([])));
  full.push(await round(await hostWith([timeoutPolicy(), retryPolicy(), otel()])));
}
const ratio = median(full) / median(bare);
console.log(`bare pipeline:                       ${median(bare).toFixed(1)} µs/call (median of ${rounds} rounds of ${callsPerRound})`);
console.log(`timeout + retry + otel (no SDK):     ${median(full).toFixed(1)} µs/call`);
recordRatio({ pkg: 'otel', label: 'timeout + retry + otel (no SDK) vs the bare pipeline', ratio, target: budget });

// Where the cost goes: each plugin alone, and the mechanisms they are made of, each as a tap of its own.
// One host per variant, rounds interleaved; the minimum of the rounds is the least disturbed figure.
const tap = (name, fn) => () => definePlugin({ name, version: '0.0.0', register: (h) => h.hooks.execute.tap(name, fn) });
const variants = {
  'bare pipeline': [],
  'a tap returning next()': [tap('pass', (_ctx, next) => next())],
  'a tap adding one then': [tap('then', (_ctx, next) => next().then((o) => o))],
  'a tap cancellation (core race)': [tap('race', (ctx, next) => next({ cancellation: new Cancellation({ parent: ctx.cancellation }) }))],
  '... with a deadline (clock + timer)': [
    tap('deadline', (ctx, next) =>
      next({ cancellation: new Cancellation({ parent: ctx.cancellation, deadline: performance.now() + 30_000 }) }),
    ),
  ],
  'timeout policy': [() => timeoutPolicy()],
  'retry policy': [() => retryPolicy()],
  'otel (no SDK)': [() => otel()],
  'all three': [() => timeoutPolicy(), () => retryPolicy(), () => otel()],
};
const hosts = new Map();
for (const [label, plugins] of Object.entries(variants)) {
  const host = createHost({ defaultDecision: 'allow', retainEvents: 100 });
  host.tools.register(read);
  for (const make of plugins) await host.use(make());
  hosts.set(label, host);
  await round(host);
}
const samples = new Map([...hosts.keys()].map((label) => [label, []]));
for (let r = 0; r < rounds * 2; r++) for (const [label, host] of hosts) samples.get(label)?.push(await round(host));
const floor = Math.min(...(samples.get('bare pipeline') ?? []));
console.log('\nbreakdown (minimum of the rounds, µs per call, and the ratio to the bare pipeline):');
for (const [label, xs] of samples) {
  const best = Math.min(...xs);
  console.log(`  ${label.padEnd(38)} ${best.toFixed(2)}  ${(best / floor).toFixed(3)}  (+${(best - floor).toFixed(2)})`);
}

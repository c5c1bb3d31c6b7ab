// Per-call pipeline cost with the three around-dispatch plugins (timeout, retry, otel)
// and no OpenTelemetry SDK, as a ratio to the bare pipeline measured in the same run.
// Budget (issue 5): at most 1.15. Run after `pnpm build`.
import { createHost, defineTool, z } from '@deepseek-ai/dsh-core';
import { otel } from '@deepseek-ai/dsh-otel';
import { retryPolicy } from '@deepseek-ai/dsh-retry-policy';
import { timeoutPolicy } from '@deepseek-ai/dsh-timeout-policy';

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

async function round(host) {
  const start = performance.now();
  for (let i = 0; i < callsPerRound; i++) {
    const { results } = await host.runStep({ calls: [{ id: `c${i}`, name: 'read_note', args: { id: i } }] });
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
console.log(`ratio: ${ratio.toFixed(3)} (budget ${budget}) ${ratio <= budget ? 'OK' : 'OVER BUDGET'}`);
if (ratio > budget) process.exitCode = 1;

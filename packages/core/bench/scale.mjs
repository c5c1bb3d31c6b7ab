// A step of 10,000 concurrent calls settles; 100,000 sequential calls leave the heap where it began.
// Both rows go into `pnpm bench`'s table (scripts/bench/report.mjs).
import { createHost, defineTool, z } from '@deepseek-ai/dsh-core';
import { recordValue } from '../../../scripts/bench/report.mjs';

/** Whether both rows meet their targets. */
export async function scale() {
  const host = createHost({ session: 'bench', defaultDecision: 'allow', retainEvents: 100, maxParallel: 10_000 });
  host.tools.register(
    defineTool({
      name: 'wait',
      description: 'Waits a tick.',
      parallel: true,
      input: z.object({ n: z.number() }),
      execute: async (args) => {
        await new Promise((resolve) => setImmediate(resolve));
        return args.n;
      },
    }),
  );
  const calls = Array.from({ length: 10_000 }, (_, n) => ({ id: `c${n}`, name: 'wait', args: { n } }));
  const start = Date.now();
  const { results } = await host.runStep({ calls });
  const elapsedMs = Date.now() - start;
  // A call without its own ok result (missing, failed, or another call's output) is one the step lost.
  const lost = 10_000 - results.filter((r, n) => r.outcome.status === 'ok' && r.outcome.output === n).length;
  const settledOk = recordValue({
    pkg: 'core',
    label: 'a step of 10,000 concurrent calls: calls without their own result',
    value: lost,
    unit: 'calls',
    target: 0,
    note: `(settled in ${elapsedMs} ms)`,
  });

  const sequential = createHost({ session: 'bench', defaultDecision: 'allow', retainEvents: 100 });
  sequential.tools.register(defineTool({ name: 'echo', description: 'Echo.', input: z.object({ n: z.number() }), execute: (a) => a.n }));
  const run = async (count, offset) => {
    for (let i = 0; i < count; i++) await sequential.runStep({ calls: [{ id: `s${offset + i}`, name: 'echo', args: { n: i } }] });
  };
  await run(10_000, 0); // reach a steady state first
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  await run(100_000, 10_000);
  globalThis.gc();
  const after = process.memoryUsage().heapUsed;
  const growth = (after - before) / before;
  const flatOk = recordValue({
    pkg: 'core',
    label: '100,000 sequential calls: heap growth',
    value: growth * 100,
    unit: '%',
    target: 10,
    note: `(${(before / 1e6).toFixed(1)} MB -> ${(after / 1e6).toFixed(1)} MB)`,
  });
  return settledOk && flatOk;
}

// A step of 10,000 concurrent calls settles; 100,000 sequential calls leave the heap where it began.
import { createHost, defineTool, z } from '@deepseek-ai/dsh-core';

export async function scale() {
  let failed = false;
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
  const settled = results.length === 10_000 && results.every((r, n) => r.outcome.status === 'ok' && r.outcome.output === n);
  failed ||= !settled;
  console.log(`${settled ? 'ok  ' : 'FAIL'} a step of 10,000 concurrent calls settled in ${Date.now() - start} ms`);

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
  const flat = growth < 0.1;
  failed ||= !flat;
  console.log(
    `${flat ? 'ok  ' : 'FAIL'} 100,000 sequential calls: heap ${(before / 1e6).toFixed(1)} MB -> ${(after / 1e6).toFixed(1)} MB (${(growth * 100).toFixed(1)}%, target < 10%)`,
  );
  return failed;
}

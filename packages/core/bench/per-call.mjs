// Per-call cost of the whole pipeline against tapable's AsyncSeriesWaterfallHook.
import { createHost, defineTool, z } from '@deepseek-ai/dsh-core';
import tapable from 'tapable';
import { ns, paired } from './timing.mjs';

const body = (args) => ({ echoed: args.text });
const args = { text: 'hello' };

function host(taps) {
  const h = createHost({ session: 'bench', defaultDecision: 'allow', retainEvents: 64 });
  h.tools.register(defineTool({ name: 'echo', description: 'Echo.', input: z.object({ text: z.string() }), execute: body }));
  for (let i = 0; i < taps; i++) {
    h.hooks.preExecute.tap(`pre-${i}`, () => undefined);
    h.hooks.execute.tap(`exec-${i}`, (_ctx, next) => next());
    h.hooks.postExecute.tap(`post-${i}`, () => undefined);
    h.hooks.result.tap(`result-${i}`, () => undefined);
  }
  return h;
}

export async function perCall(report) {
  // The baseline of issue 2 (about 1.9 µs on its machine): ten promise taps, as an async
  // waterfall hook's taps are. The same hook with synchronous taps is printed for reference.
  const hook = new tapable.AsyncSeriesWaterfallHook(['args']);
  for (let i = 0; i < 10; i++) hook.tapPromise(`tap-${i}`, async () => undefined);
  const syncHook = new tapable.AsyncSeriesWaterfallHook(['args']);
  for (let i = 0; i < 10; i++) syncHook.tap(`tap-${i}`, () => undefined);

  const full = host(10);
  for (let i = 0; i < 3; i++) full.guards.register({ id: `guard-${i}`, check: () => 'abstain' });
  const empty = host(0);
  const step = (i) => ({ calls: [{ id: `c${i}`, name: 'echo', args }] });

  const main = await paired(
    async () => body(await hook.promise(args)),
    (i) => full.runStep(step(i)),
  );
  const sync = await paired(
    async () => body(await syncHook.promise(args)),
    (i) => full.runStep(step(i)),
    { rounds: 5 },
  );
  const bare = await paired(
    async () => body(args),
    (i) => empty.runStep(step(i)),
    { rounds: 5 },
  );

  // Agents pass a step signal (the user's stop button): what following it adds to a bare call.
  const controller = new AbortController();
  const signalled = await paired(
    (i) => empty.runStep(step(i)),
    (i) => empty.runStep(step(i), { signal: controller.signal }),
    { rounds: 5 },
  );

  console.log(
    `tapable waterfall, 10 promise taps + body: ${ns(main.baseline)}; dsh, 10 taps on each of 4 points + 3 guards: ${ns(main.candidate)}`,
  );
  console.log(
    `(reference: against 10 sync taps ${sync.ratio.toFixed(1)}x; dsh with no taps is ${bare.ratio.toFixed(1)}x the bare body, ${ns(bare.candidate)})`,
  );
  console.log(
    `(reference: a call with no taps under a step signal ${ns(signalled.candidate)}, ${signalled.ratio.toFixed(2)}x one without, ${ns(signalled.baseline)})`,
  );
  report('per-call pipeline vs tapable waterfall + body', main.ratio, 3);
}

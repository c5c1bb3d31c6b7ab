import { createHost, defineTool, z } from '@deepseek-ai/dsh-core';

const only = process.argv[2];
const h = createHost({ session: 'bench', defaultDecision: 'allow', retainEvents: 64 });
h.tools.register(
  defineTool({ name: 'echo', description: 'Echo.', input: z.object({ text: z.string() }), execute: (a) => ({ e: a.text }) }),
);
for (let i = 0; i < 10; i++) {
  if (!only || only === 'pre') h.hooks.preExecute.tap(`pre-${i}`, () => undefined);
  if (!only || only === 'exec') h.hooks.execute.tap(`exec-${i}`, (_ctx, next) => next());
  if (!only || only === 'post') h.hooks.postExecute.tap(`post-${i}`, () => undefined);
  if (!only || only === 'result') h.hooks.result.tap(`result-${i}`, () => undefined);
}
const args = { text: 'hello' };
for (let i = 0; i < 20000; i++) await h.runStep({ calls: [{ id: `c${i}`, name: 'echo', args }] });
const t0 = process.hrtime.bigint();
for (let i = 0; i < 100000; i++) await h.runStep({ calls: [{ id: `c${i}`, name: 'echo', args }] });
console.log(only ?? 'all', Number(process.hrtime.bigint() - t0) / 100000, 'ns/call');

import { describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import { createHost, defineTool, z } from './index.js';
import { createTestHost } from './testing/index.js';

describe('pending and completed cards (stages 2 and 14)', () => {
  it("shows the tool's own cards: pending before the body, completed after the result", async () => {
    const t = await createTestHost();
    const order: string[] = [];
    t.host.tools.register(
      defineTool({
        name: 'greet',
        description: 'Greets.',
        input: z.object({ who: z.string() }),
        present: {
          presentCall: (args) => ({ title: `Greet ${String(args.who)}` }),
          presentResult: (args, outcome) => ({ title: `Greeted ${args.who}`, summary: outcome.status, format: 'markdown' }),
        },
        execute: (args) => {
          order.push(`body, ${t.ui.cards.length} card(s) shown`);
          return `hello ${args.who}`;
        },
      }),
    );
    await t.call('greet', { who: 'Ada' }, 'g');
    expect(order).toEqual(['body, 1 card(s) shown']);
    expect(t.ui.cards).toMatchObject([
      { kind: 'pending', call: { id: 'g' }, card: { title: 'Greet Ada' } },
      { kind: 'completed', call: { id: 'g' }, card: { title: 'Greeted Ada', summary: 'ok' }, outcome: { status: 'ok' } },
    ]);
  });

  it('falls back to generic cards when a presenter throws, and the call goes on', async () => {
    const t = await createTestHost();
    t.host.tools.register(
      defineTool({
        name: 'fragile',
        description: 'Has a broken presenter.',
        input: z.object({}),
        present: {
          presentCall: () => {
            throw new Error('presenter bug');
          },
          presentResult: () => {
            throw new Error('presenter bug');
          },
        },
        execute: () => 'fine',
      }),
    );
    expect(await t.call('fragile', {})).toMatchObject({ status: 'ok', output: 'fine' });
    expect(t.ui.cards.map((c) => c.card.title)).toEqual(['fragile', 'fragile']);
    expect(t.host.diagnostics.list().map((d) => d.code)).toEqual(['PRESENTER_FAILED', 'PRESENTER_FAILED']);
  });

  it('shows generic cards for unknown tools, errors and denials', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    await t.call('missing', { a: 1 });
    t.host.guards.register({ id: 'no', check: () => ({ deny: 'never' }) });
    await t.call('echo', { text: 'x'.repeat(500) });
    const completed = t.ui.cards.filter((c) => c.kind === 'completed').map((c) => c.card);
    expect(completed[0]).toMatchObject({ title: 'missing', summary: 'failed: UNKNOWN_TOOL' });
    expect(completed[1]).toMatchObject({ title: 'echo', summary: 'denied', body: 'never' });
    const pending = t.ui.cards.find((c) => c.kind === 'pending' && c.call.name === 'echo');
    expect(pending?.card.summary?.endsWith('…')).toBe(true);
  });

  it('never fails a call because the UI adapter throws, rejects or hangs', async () => {
    for (const ui of [
      {
        pending: () => {
          throw new Error('ui down');
        },
      },
      { completed: () => Promise.reject(new Error('ui down')) },
      { pending: () => new Promise<void>(() => undefined), completed: () => new Promise<void>(() => undefined) },
    ]) {
      const host = createHost({ defaultDecision: 'allow', ui, uiTimeoutMs: 20 });
      host.tools.register(echoTool());
      const { results } = await host.runStep({ calls: [{ id: 'a', name: 'echo', args: { text: 'x' } }] });
      expect(results[0]?.outcome).toMatchObject({ status: 'ok' });
      expect(host.diagnostics.list().some((d) => d.code === 'UI_FAILED')).toBe(true);
    }
  });

  it('streams progress from a body to the UI, and survives a progress handler that throws', async () => {
    const t = await createTestHost();
    t.host.tools.register(
      defineTool({
        name: 'chatty',
        description: 'Reports progress.',
        input: z.object({}),
        execute: (_args, ctx) => {
          ctx.progress({ line: 'one' });
          ctx.progress({ line: 'two' });
          return 'done';
        },
      }),
    );
    await t.call('chatty', {}, 'p');
    expect(t.ui.progressUpdates).toEqual([
      { call: expect.objectContaining({ id: 'p' }), update: { line: 'one' } },
      { call: expect.objectContaining({ id: 'p' }), update: { line: 'two' } },
    ]);
    const host = createHost({
      defaultDecision: 'allow',
      ui: {
        progress: () => {
          throw new Error('renderer crashed');
        },
      },
    });
    host.tools.register(
      defineTool({
        name: 'chatty',
        description: 'x',
        input: z.object({}),
        execute: (_a, ctx) => {
          ctx.progress(1);
          return 'done';
        },
      }),
    );
    const { results } = await host.runStep({ calls: [{ id: 'a', name: 'chatty', args: {} }] });
    expect(results[0]?.outcome).toMatchObject({ status: 'ok' });
    expect(host.diagnostics.list()[0]?.code).toBe('UI_FAILED');
  });
});

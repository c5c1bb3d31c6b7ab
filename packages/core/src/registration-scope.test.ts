import { describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import { createHost, definePlugin, type Host, type Plugin, z } from './index.js';

declare module './events.js' {
  interface EventDataMap {
    'half/event': { readonly n: number };
  }
}

/** What a host has registered, by kind. */
function inventory(host: Host) {
  return {
    tools: host.tools.list().map((t) => t.name),
    preExecute: host.hooks.preExecute.names(),
    execute: host.hooks.execute.names(),
    postExecute: host.hooks.postExecute.names(),
    result: host.hooks.result.names(),
    guards: host.guards.ids(),
    events: [...host.events.schemas().keys()].filter((type) => type.startsWith('half/')),
  };
}

/** A plugin that registers one of everything, then fails with `fail()`. */
function halfPlugin(heard: string[], fail: () => Promise<void> | void): Plugin {
  return definePlugin({
    name: 'half',
    version: '1.0.0',
    async register(host) {
      host.tools.register(echoTool());
      host.hooks.preExecute.tap('half', () => undefined);
      host.hooks.execute.tap('half', (_ctx, next) => next());
      host.hooks.postExecute.tap('half', () => undefined);
      host.hooks.result.tap('half', () => undefined);
      host.guards.register({ id: 'half', check: () => 'abstain' });
      host.gates.on('fs/write-intent', 'half', () => ({ veto: 'half a plugin' }));
      host.events.define('half/event', z.object({ n: z.number() }));
      host.events.subscribe((event) => heard.push(event.type));
      await fail();
    },
  });
}

describe('a plugin registration that fails', () => {
  it('leaves the host as it was when register throws, so the plugin can be registered again', async () => {
    const host = createHost({ defaultDecision: 'allow' });
    const before = inventory(host);
    const heard: string[] = [];
    await expect(
      host.use(
        halfPlugin(heard, () => {
          throw new Error('bad config');
        }),
      ),
    ).rejects.toMatchObject({ code: 'PLUGIN_REGISTER_FAILED' });
    expect(inventory(host)).toEqual(before);
    expect(host.plugins()).toEqual([]);
    // The subscriber is gone: a call logs events nobody hears.
    await host.runStep({ calls: [{ id: 'c1', name: 'nothing', args: {} }] });
    expect(host.events.list().length).toBeGreaterThan(0);
    expect(heard).toEqual([]);
    await host.use(halfPlugin(heard, () => undefined));
    expect(inventory(host).tools).toContain('echo');
    expect(host.plugins().map((p) => p.name)).toEqual(['half']);
  });

  it('undoes what it registered before its deadline, and refuses what it registers after it', async () => {
    const host = createHost({ pluginTimeoutMs: 20 });
    const before = inventory(host);
    let late: unknown;
    const stalled = definePlugin({
      name: 'stalled',
      version: '1.0.0',
      async register(h) {
        h.hooks.execute.tap('early', (_ctx, next) => next());
        await new Promise((resolve) => setTimeout(resolve, 60));
        try {
          h.tools.register(echoTool());
        } catch (error) {
          late = error;
        }
      },
    });
    await expect(host.use(stalled)).rejects.toMatchObject({ code: 'PLUGIN_REGISTER_TIMEOUT' });
    expect(inventory(host)).toEqual(before);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(late).toMatchObject({ code: 'PLUGIN_REGISTER_FAILED' });
    expect(inventory(host)).toEqual(before);
  });

  it('keeps what a plugin registers after it is in, and hands it its own undo functions', async () => {
    const host = createHost();
    let untap: (() => void) | undefined;
    let later: Host | undefined;
    await host.use(
      definePlugin({
        name: 'lazy',
        version: '1.0.0',
        register(h) {
          untap = h.hooks.execute.tap('now', (_ctx, next) => next());
          later = h;
        },
      }),
    );
    later?.tools.register(echoTool());
    expect(inventory(host)).toMatchObject({ tools: ['echo'], execute: ['now'] });
    untap?.();
    expect(host.hooks.execute.names()).toEqual([]);
  });
});

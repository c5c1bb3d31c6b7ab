// host.close() stops what plugins started: each plugin's close, newest first, once; a close that
// throws or never settles is a diagnostic, and the plugins after it are closed all the same.

import { describe, expect, it } from 'vitest';
import { createHost, definePlugin, type Host } from './index.js';

function closing(name: string, closed: string[], close: () => void | Promise<void> = () => undefined) {
  return definePlugin({
    name,
    version: '1',
    register: () => undefined,
    close: async () => {
      closed.push(name);
      await close();
    },
  });
}

describe('host.close', () => {
  it('closes every plugin once, newest first, then the sink', async () => {
    const closed: string[] = [];
    const sink = { append: () => undefined, close: async () => void closed.push('sink') };
    const host = createHost({ sink, defaultDecision: 'allow' });
    await host.use(closing('a', closed));
    await host.use(definePlugin({ name: 'no-close', version: '1', register: () => undefined }));
    await host.use(closing('b', closed));
    const first = host.close();
    expect(host.close()).toBe(first);
    await first;
    expect(closed).toEqual(['b', 'a', 'sink']);
    await host.close();
    expect(closed).toHaveLength(3);
  });

  it('records a close that throws or never settles, and still closes the rest', async () => {
    const closed: string[] = [];
    const host = createHost({ pluginTimeoutMs: 200 });
    await host.use(closing('first', closed));
    await host.use(
      closing('throws', closed, () => {
        throw new Error('port already gone');
      }),
    );
    await host.use(closing('hangs', closed, () => new Promise<void>(() => undefined)));
    await host.close();
    expect(closed).toEqual(['hangs', 'throws', 'first']);
    expect(host.diagnostics.list().map((d) => [d.code, d.source, d.message])).toEqual([
      ['PLUGIN_CLOSE_TIMEOUT', 'plugin:hangs', 'close did not finish within 200 ms'],
      ['PLUGIN_CLOSE_FAILED', 'plugin:throws', 'close failed: port already gone'],
    ]);
  });

  it('gives close the host register was given, once per host the plugin registered with', async () => {
    const registeredWith: Host[] = [];
    const closedWith: Host[] = [];
    const shared = definePlugin({
      name: 'shared',
      version: '1',
      register: (host) => void registeredWith.push(host),
      close: (host) => void closedWith.push(host),
    });
    const first = createHost();
    const second = createHost();
    await first.use(shared);
    await second.use(shared);
    await first.close();
    expect(closedWith).toEqual([registeredWith[0]]);
    await second.close();
    expect(closedWith).toEqual(registeredWith);
    expect(registeredWith[0]).not.toBe(registeredWith[1]);
  });

  it('does not close a plugin whose registration failed (it was rolled back)', async () => {
    const closed: string[] = [];
    const host = createHost();
    const failing = definePlugin({
      name: 'failing',
      version: '1',
      register: () => {
        throw new Error('bad config');
      },
      close: () => void closed.push('failing'),
    });
    await expect(host.use(failing)).rejects.toMatchObject({ code: 'PLUGIN_REGISTER_FAILED' });
    await host.close();
    expect(closed).toEqual([]);
  });

  it('refuses a close that is not a function', () => {
    expect(() => definePlugin({ name: 'x', version: '1', register: () => undefined, close: 'soon' as never })).toThrow(
      expect.objectContaining({ code: 'INVALID_PLUGIN' }),
    );
  });
});

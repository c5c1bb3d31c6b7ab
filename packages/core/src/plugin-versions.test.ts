import { describe, expect, it } from 'vitest';
import { codeOf } from './__fixtures__/errors.js';
import { echoTool } from './__fixtures__/tools.js';
import { createHost, definePlugin, type Plugin } from './index.js';

/** Two releases of one plugin, and a plugin that works only with the second. */
const echoPlugin = (version: string): Plugin =>
  definePlugin({ name: 'echo-plugin', version, register: (host) => void host.tools.register(echoTool()) });
const needsEchoTwo = definePlugin({
  name: 'echo-user',
  version: '1.0.0',
  dependencies: [{ name: 'echo-plugin', versions: '^0.2.0' }],
  register: () => undefined,
});

describe('plugin dependencies with versions', () => {
  it('registers a plugin whose dependency is at an accepted version', async () => {
    const host = createHost();
    await host.use(echoPlugin('0.2.3'));
    await host.use(needsEchoTwo);
    expect(host.plugins().map((p) => p.name)).toEqual(['echo-plugin', 'echo-user']);
  });

  it('refuses one whose dependency is at another version, naming both, and registers nothing of it', async () => {
    const host = createHost();
    await host.use(echoPlugin('0.1.0'));
    await expect(host.use(needsEchoTwo)).rejects.toMatchObject({
      code: 'PLUGIN_DEPENDENCY_VERSION',
      message: expect.stringMatching(/"echo-plugin" at versions \^0\.2\.0, but 0\.1\.0 is registered/),
    });
    expect(host.plugins().map((p) => p.name)).toEqual(['echo-plugin']);
  });

  it('still refuses a missing dependency first, whatever versions it names', async () => {
    await expect(createHost().use(needsEchoTwo)).rejects.toMatchObject({ code: 'PLUGIN_DEPENDENCY_MISSING' });
  });

  it('refuses a malformed range when the plugin is declared', () => {
    for (const versions of ['not a range', '1.x.3', 42 as never]) {
      expect(
        codeOf(() => definePlugin({ name: 'p', version: '1', dependencies: [{ name: 'a', versions }], register: () => undefined })),
      ).toBe('INVALID_PLUGIN');
    }
  });
});

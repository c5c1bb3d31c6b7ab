import { describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import { catalogMarkdown, catalogOf, createHost, z } from './index.js';

describe('catalogOf', () => {
  it('lists every tool schema and every event type schema, sorted, from the code', () => {
    const host = createHost();
    host.tools.register(echoTool());
    host.events.define('demo/thing', z.object({ n: z.number() }));
    const catalog = catalogOf(host);
    expect(catalog.tools.map((t) => t.name)).toEqual(['echo']);
    const types = catalog.events.map((e) => e.type);
    expect(types).toEqual([...types].sort());
    expect(types).toEqual(
      expect.arrayContaining([
        'tool/call',
        'tool/result',
        'context/message',
        'todo/write',
        'fs/observed',
        'hook/invoked',
        'hook/result',
        'tool/code-dispatch',
        'demo/thing',
      ]),
    );
    const markdown = catalogMarkdown(catalog);
    expect(markdown).toContain('### `echo`');
    expect(markdown).toContain('### `demo/thing`');
  });
});

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

describe('event docs in the catalog (issue 16 item 4)', () => {
  it("gives every core event type a one-line meaning and an example that passes the type's schema", () => {
    const host = createHost();
    const schemas = host.events.schemas();
    const docs = host.events.docs();
    expect([...docs.keys()].sort()).toEqual([...schemas.keys()].sort());
    for (const [type, schema] of schemas) {
      const doc = docs.get(type);
      expect(doc?.meaning, type).toMatch(/^[^\n]+$/);
      expect(schema.safeParse(doc?.example).success, type).toBe(true);
    }
    const markdown = catalogMarkdown(catalogOf(host));
    expect(markdown).toContain('Example `data`:');
    expect(markdown).toContain(docs.get('approval/answer')?.meaning);
  });

  it('takes a plugin type with its meaning and example, and refuses an example that fails the schema', () => {
    const host = createHost();
    host.events.define('demo/thing', z.object({ n: z.number() }), { meaning: 'A thing happened.', example: { n: 1 } });
    expect(catalogOf(host).events.find((e) => e.type === 'demo/thing')).toMatchObject({ meaning: 'A thing happened.', example: { n: 1 } });
    expect(() => host.events.define('demo/bad', z.object({ n: z.number() }), { meaning: 'Bad.', example: { n: 'x' } })).toThrow(
      expect.objectContaining({ code: 'INVALID_EVENT_DATA' }),
    );
    expect(() => host.events.define('demo/worse', z.object({}), { meaning: 'two\nlines', example: {} })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    host.events.define('demo/plain', z.object({}));
    expect(catalogMarkdown(catalogOf(host))).toContain('gives no meaning or example');
  });
});

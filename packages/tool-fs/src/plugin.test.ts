import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsHost, okOutput, type Scratch, scratch } from './fixtures/workspace.js';
import { toolFs } from './plugin.js';

let s: Scratch;
beforeEach(async () => {
  s = await scratch();
});
afterEach(() => s.cleanup());

describe('toolFs', () => {
  it('registers the seven file tools with JSON Schemas for the model', async () => {
    const t = await fsHost(s.ws);
    expect(t.host.tools.schemas().map((x) => x.name)).toEqual(['read', 'write', 'edit', 'multi_edit', 'list', 'glob', 'grep']);
    expect(t.host.tools.schemas()[0]?.inputSchema).toMatchObject({ required: ['file_path'] });
  });

  it('marks reads and searches parallel and idempotent, and mutations neither', async () => {
    const t = await fsHost(s.ws);
    const flags = Object.fromEntries(t.host.tools.list().map((tool) => [tool.name, [tool.parallel === true, tool.idempotent === true]]));
    expect(flags).toEqual({
      read: [true, true],
      list: [true, true],
      glob: [true, true],
      grep: [true, true],
      write: [false, false],
      edit: [false, false],
      multi_edit: [false, false],
    });
  });

  it.each([
    [{ roots: [] }, 'roots'],
    [{ maxReadLines: 0 }, 'maxReadLines'],
    [{ search: 'fast' }, 'search'],
    [{ unknown: true }, 'options'],
  ])('refuses bad options naming the field (%j)', (options, field) => {
    expect(() => toolFs(options as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringContaining(field) }),
    );
  });

  it('refuses a second copy on the same host', async () => {
    await expect(createTestHost({ plugins: [toolFs({ roots: [s.ws] }), toolFs({ roots: [s.ws] })] })).rejects.toMatchObject({
      code: 'DUPLICATE_PLUGIN',
    });
  });

  it('rejects invalid arguments before the body runs, naming the field', async () => {
    const t = await fsHost(s.ws);
    const outcome = await t.call('read', { file_path: 'a', offset: 0 });
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS' } });
    expect(outcome.status === 'error' && outcome.error.message).toContain('offset');
  });
});

describe('toolFs and a slow ripgrep', () => {
  it('registers without waiting for the ripgrep probe; the first grep waits for it', async () => {
    // An `rg` that answers only when told to, as a real one can take seconds to start on a busy machine.
    const gate = path.join(s.base, 'answer');
    const rg = path.join(s.base, 'slow-rg');
    await writeFile(rg, `#!/bin/sh\nwhile [ ! -e '${gate}' ]; do sleep 0.05; done\necho 'not ripgrep'\n`, { mode: 0o755 });
    await writeFile(path.join(s.ws, 'a.txt'), 'needle\n');
    const t = await fsHost(s.ws, { ripgrepPath: rg }, { pluginTimeoutMs: 2000 });
    const grep = t.call('grep', { pattern: 'needle' });
    await writeFile(gate, '');
    expect(okOutput(await grep)).toMatchObject({ engine: 'builtin', files: [path.join(s.ws, 'a.txt')] });
  });
});

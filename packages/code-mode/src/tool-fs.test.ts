import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestHost, logProblems } from '@deepseek-ai/dsh-core/testing';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { okOutput } from './fixtures/kit.js';
import { codeMode } from './index.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'code-mode-fs-'));
  await writeFile(join(dir, 'a.txt'), 'alpha\nTODO: first\n');
  await writeFile(join(dir, 'b.txt'), 'beta\nnothing here\n');
  await writeFile(join(dir, 'c.txt'), 'gamma\nTODO: second\nTODO: third\n');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function fsHost() {
  const t = await createTestHost({ plugins: [toolFs({ roots: [dir], cwd: dir, search: 'builtin' }), codeMode()] });
  t.host.guards.register({
    id: 'no-writes-to-secrets',
    check: (input) =>
      input.call.name === 'write' && String(input.args.file_path).includes('secret') ? { deny: 'secrets are read-only' } : 'abstain',
  });
  return t;
}

describe('run_code with the real file tools', () => {
  it('reads three files, greps them and returns a summary', async () => {
    const t = await fsHost();
    const code = [
      'const names = ["a.txt", "b.txt", "c.txt"];',
      'const sizes = {};',
      'for (const name of names) sizes[name] = (await tools.read({ file_path: name })).content.split("\\n").length;',
      'const found = await tools.grep({ pattern: "TODO", output_mode: "count" });',
      'const todos = Object.fromEntries(found.counts.map((c) => [c.path.split("/").pop(), c.count]));',
      'return { sizes, todos, total: found.matches };',
    ].join('\n');
    const output = okOutput(await t.call('run_code', { code }, 'fs'));
    expect(output.result).toEqual({ sizes: { 'a.txt': 2, 'b.txt': 2, 'c.txt': 3 }, todos: { 'a.txt': 1, 'c.txt': 2 }, total: 3 });
    expect(output.calls.map((c) => `${c.name}:${c.status}`)).toEqual(['read:ok', 'read:ok', 'read:ok', 'grep:ok']);
    const events = t.host.events.list();
    expect(logProblems(events)).toEqual([]);
    // The reads were observed by tool-fs as the session's own, under the run's token.
    expect(events.filter((e) => e.type === 'fs/observed').map((e) => e.call)).toEqual(['fs:code:0', 'fs:code:1', 'fs:code:2']);
  });

  it('catches a forbidden write and goes on; the file tools’ read-before-edit gate applies inside programs', async () => {
    const t = await fsHost();
    const code = [
      'const log = [];',
      'try { await tools.write({ file_path: "secret.txt", content: "leak" }); } catch (e) { log.push(e.status + ": " + e.message); }',
      'try { await tools.edit({ file_path: "b.txt", old_string: "beta", new_string: "BETA" }); } catch (e) { log.push(e.code); }',
      'await tools.read({ file_path: "b.txt" });',
      'await tools.edit({ file_path: "b.txt", old_string: "beta", new_string: "BETA" });',
      'return log;',
    ].join('\n');
    const output = okOutput(await t.call('run_code', { code }));
    // The gate's veto: tool-fs reports it with its own code (as a denial or an error, depending on its version).
    expect(output.result).toEqual(['denied: secrets are read-only', 'FS_NOT_READ']);
    expect(await readFile(join(dir, 'b.txt'), 'utf8')).toBe('BETA\nnothing here\n');
    await expect(readFile(join(dir, 'secret.txt'), 'utf8')).rejects.toThrow();
    expect(logProblems(t.host.events.list())).toEqual([]);
  });
});

import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('the README example', () => {
  it('runs as written and prints what its comments say', async () => {
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    const example = /## Example[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    // A plain install picks the newest agents-core, which needs Node 22: the README names the line for Node 20.
    expect(readme).toMatch(/## Install[\s\S]*# Node 20\nnpm install [^\n]*@openai\/agents-core@~0\.14\.3/);
    // Inside the package, so that its imports (the package itself included) resolve as a user's would.
    const file = join(packageDir, `.readme-example-${process.pid}.mjs`);
    writeFileSync(file, example ?? '');
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [file], { cwd: packageDir, timeout: 60_000 });
      const lines = stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^approve write \{"file_path":"[^"]*copy\.txt".*\? \(.*Write.*\)$/);
      expect(lines.slice(1)).toEqual(['Copied.', '2']);
    } finally {
      rmSync(file, { force: true });
    }
  });
});

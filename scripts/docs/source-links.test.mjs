import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { missingSourceLinks } from './source-links.mjs';

let root;
/** A repository under a temporary folder with the given files. */
function repo(files) {
  root = mkdtempSync(join(tmpdir(), 'dsh-docs-sources-'));
  for (const [path, text] of Object.entries({ 'README.md': '# dsh\n', ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('missingSourceLinks', () => {
  it('lists every relative link of the docs and READMEs whose file is missing, and only those', () => {
    const problems = missingSourceLinks(
      repo({
        'docs/pipeline.md': [
          '[there](catalog/catalog.md) [with anchor](catalog/catalog.md#bash) [core](../packages/core/README.md#stages)',
          '[gone](PIPELINE.md) [web](https://example.com/x.md) [here](#top) [mail](mailto:a@b.c)',
          '[ref]: ./missing-ref.md',
          '<img src="shots/missing.png" alt="x">',
        ].join('\n'),
        'docs/catalog/catalog.md': '# Catalog\n[back](../pipeline.md)\n',
        'packages/core/README.md': '# core\n[root](/docs/pipeline.md) [lost](/docs/lost.md)\n',
        'docs/api/index.md': '[ignored, generated](nowhere.md)\n',
      }),
    );
    expect(problems.map(({ source, problem }) => `${source}: ${problem}`).sort()).toEqual([
      'docs/pipeline.md: links to ./missing-ref.md, which does not exist',
      'docs/pipeline.md: links to PIPELINE.md, which does not exist',
      'docs/pipeline.md: links to shots/missing.png, which does not exist',
      'packages/core/README.md: links to /docs/lost.md, which does not exist',
    ]);
  });

  it('ignores links written inside code blocks and code spans', () => {
    const problems = missingSourceLinks(
      repo({ 'docs/a.md': '```md\n[in a block](gone.md)\n```\nThe syntax `[text](gone2.md)` makes a link.\n' }),
    );
    expect(problems).toEqual([]);
  });
});

// The relative links of the Markdown the docs site is built from (docs/**, the root README and
// every package's README) must name files that exist in the repository: a reader follows them on
// GitHub as well as in the site.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** The Markdown sources of the site under `root`: docs/** except the generated docs/api, and the READMEs. */
export function docsSources(root) {
  const underDocs = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return path === join(root, 'docs', 'api') ? [] : underDocs(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  const packages = join(root, 'packages');
  const readmes = (existsSync(packages) ? readdirSync(packages) : [])
    .map((name) => join(packages, name, 'README.md'))
    .filter((path) => existsSync(path));
  return [...underDocs(join(root, 'docs')), join(root, 'README.md'), ...readmes];
}

/** Link targets written in Markdown or HTML, outside code blocks and code spans. */
export function linkTargets(markdown) {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/(`+)[\s\S]*?\1/g, '');
  return [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1] ?? ''),
    ...[...prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1] ?? ''),
    ...[...prose.matchAll(/<(?:a|img)\s[^>]*?(?:href|src)="([^"]+)"/g)].map((match) => match[1] ?? ''),
  ];
}

/** Each relative link of the docs sources under `root` whose file does not exist: where, and what. */
export function missingSourceLinks(root) {
  return docsSources(root).flatMap((source) =>
    linkTargets(readFileSync(source, 'utf8'))
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'))
      .filter((target) => {
        const path = decodeURIComponent(target.replace(/[?#].*$/, ''));
        return !existsSync(path.startsWith('/') ? join(root, path) : join(dirname(source), path));
      })
      .map((target) => ({ source: relative(root, source), problem: `links to ${target}, which does not exist` })),
  );
}

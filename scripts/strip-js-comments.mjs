#!/usr/bin/env node
// Published JavaScript carries no comments: the documentation lives in the `.d.ts` files (kept as
// they are, so editors show it) and in the sources. Comments in `dist/**/*.js` would only add to
// what every install downloads (core has a 60 kB packed budget). Runs after `tsc -b`; the
// TypeScript printer that wrote the files prints them again, so only the comments change, and
// `verbatimModuleSyntax` keeps every import as written.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const root = new URL('../packages/', import.meta.url).pathname;
const options = {
  target: ts.ScriptTarget.ESNext,
  module: ts.ModuleKind.ESNext,
  removeComments: true,
  verbatimModuleSyntax: true,
};

function* jsFiles(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* jsFiles(path);
    else if (entry.name.endsWith('.js')) yield path;
  }
}

let files = 0;
let saved = 0;
for (const pkg of readdirSync(root)) {
  for (const file of jsFiles(join(root, pkg, 'dist'))) {
    const source = readFileSync(file, 'utf8');
    const { outputText, diagnostics } = ts.transpileModule(source, { compilerOptions: options, fileName: file, reportDiagnostics: true });
    if (diagnostics?.length) throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(diagnostics[0].messageText, '\n')}`);
    if (outputText === source) continue;
    writeFileSync(file, outputText);
    files += 1;
    saved += source.length - outputText.length;
  }
}
if (process.env.DSH_STRIP_VERBOSE) console.log(`strip-js-comments: ${files} files, ${saved} characters of comments removed`);

#!/usr/bin/env node
// `pnpm run size`: packs every published package and prints its packed size (what a consumer
// downloads) and file count; fails when a package is over its budget. Run after `pnpm run build`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packAll, reportSizes } from './pack.mjs';
import { publishedPackages } from './workspace.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'dsh-size-'));
try {
  const over = reportSizes(packAll(publishedPackages(), scratch));
  for (const line of over) console.error(line);
  process.exitCode = over.length > 0 ? 1 : 0;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

#!/usr/bin/env node
// `pnpm run smoke`: packs every published package and runs the consumer smoke test on the
// tarballs (see consumer.mjs). Run after `pnpm run build`. `--keep` leaves the project on disk.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConsumerSmoke } from './consumer.mjs';
import { packAll } from './pack.mjs';
import { publishedPackages } from './workspace.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'dsh-packs-'));
try {
  runConsumerSmoke(packAll(publishedPackages(), scratch), { keep: process.argv.includes('--keep') });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

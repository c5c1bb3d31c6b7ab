#!/usr/bin/env node
// `pnpm run package:check`: what we would publish is what works. Packs every published package
// once with `pnpm pack` (what `changeset publish` uploads), then checks each tarball: the file
// list (dist, README, LICENSE only), `publint --strict`, `attw --profile esm-only`, the size
// budgets, and finally the consumer smoke test on all tarballs together. Run after a build.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runConsumerSmoke } from './consumer.mjs';
import { fileListProblems, packAll, reportSizes } from './pack.mjs';
import { publishedPackages, workspaceRoot } from './workspace.mjs';

const exec = promisify(execFile);
const bin = (name) => join(workspaceRoot, 'node_modules', '.bin', name);

/** Runs a linter on one tarball; resolves to its output, with `failed` when it exited non-zero. */
async function lint(command, args) {
  try {
    const { stdout, stderr } = await exec(bin(command), args, { maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } });
    return { failed: false, output: stdout + stderr };
  } catch (error) {
    return { failed: true, output: `${error.stdout ?? ''}${error.stderr ?? ''}` || String(error) };
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'dsh-packs-'));
try {
  const packed = packAll(publishedPackages(), scratch);
  const failures = [];

  for (const p of packed) for (const problem of fileListProblems(p)) failures.push(`${p.name}: files: ${problem}`);

  // Two at a time: attw starts a TypeScript program per tarball, and CI has two cores.
  const queue = [...packed];
  const worker = async () => {
    for (let p = queue.shift(); p; p = queue.shift()) {
      const [publint, attw] = [
        await lint('publint', ['run', '--strict', p.tarball]),
        await lint('attw', ['--profile', 'esm-only', '--no-emoji', '--format', 'table', p.tarball]),
      ];
      console.log(`${publint.failed || attw.failed ? 'FAIL' : 'ok  '} ${p.name}: publint --strict, attw --profile esm-only`);
      if (publint.failed) failures.push(`${p.name}: publint --strict\n${publint.output}`);
      if (attw.failed) failures.push(`${p.name}: attw --profile esm-only\n${attw.output}`);
    }
  };
  await Promise.all([worker(), worker()]);

  for (const line of reportSizes(packed)) failures.push(line);

  if (failures.length > 0) {
    console.error(`\n${failures.join('\n\n')}`);
    process.exitCode = 1;
  } else {
    runConsumerSmoke(packed);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

#!/usr/bin/env node
// The newest majors of the frameworks and clients we peer-depend on need Node >= 22, while the
// lock file holds the newest versions that still run on Node 20. Run under Node 22 or 24
// (scripts/ci/other-node.sh does), this script tests each package listed in newest-peers.json
// against those newest versions: on a scratch copy of the checkout it installs the workspace,
// `pnpm add`s the listed specs to that package, builds, runs that package's tests and prints the
// versions it tested. The checkout itself is never changed. Usage: node scripts/ci/newest-peers.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyWorkspaceSources, workspaceRoot } from '../release/workspace.mjs';

const { packages } = JSON.parse(readFileSync(join(workspaceRoot, 'scripts/ci/newest-peers.json'), 'utf8'));
const entries = Object.entries(packages);
if (entries.length === 0) {
  console.log('newest peers: none listed');
  process.exit(0);
}

function run(command, args, cwd) {
  console.log(`\n$ ${command} ${args.join(' ')}`);
  return execFileSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, FORCE_COLOR: '0' } });
}

const copy = mkdtempSync(join(tmpdir(), 'dsh-newest-peers-'));
let failed = false;
try {
  copyWorkspaceSources(copy);
  console.log(`== newest peers on Node ${process.version}, in ${copy}`);
  run('pnpm', ['install', '--frozen-lockfile', '--reporter=silent'], copy);
  for (const [name, specs] of entries) {
    run('pnpm', ['--filter', name, 'add', '--save-dev', '--reporter=silent', ...specs], copy);
  }
  run('pnpm', ['run', 'build'], copy);
  for (const [name, specs] of entries) {
    const wanted = specs.map((spec) => spec.slice(0, spec.lastIndexOf('@') > 0 ? spec.lastIndexOf('@') : undefined));
    const listed = execFileSync('pnpm', ['--filter', name, 'list', '--depth=0', '--json', ...wanted], { cwd: copy, encoding: 'utf8' });
    const deps = JSON.parse(listed)[0]?.devDependencies ?? {};
    console.log(`\n== ${name} against ${wanted.map((dep) => `${dep}@${deps[dep]?.version ?? '?'}`).join(', ')}`);
    try {
      run('pnpm', ['--filter', name, 'test'], copy);
    } catch {
      failed = true;
      console.error(`newest peers: ${name} FAILED against ${specs.join(' ')}`);
    }
  }
} finally {
  rmSync(copy, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;

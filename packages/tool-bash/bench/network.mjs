#!/usr/bin/env node
// The cost of sending a sandboxed command's network through the egress proxy: `true` in bwrap with
// `sandbox.network` as a policy (a call socket, the socat relay inside, its readiness wait) against
// the same sandbox with the network off, interleaved in one run. Run alone: `node bench/network.mjs`.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, toolHost } from './common.mjs';

/** Measures and prints the ratio; `compare(label, baseline, candidate)` is the caller's interleaving runner. */
export async function benchNetwork(compare, cwd) {
  const off = await toolHost({ cwd, sandbox: { provider: 'bwrap', network: false } });
  const proxied = await toolHost({ cwd, sandbox: { provider: 'bwrap', network: { allowedDomains: ['example.com'] } } });
  return await compare(
    'bash -c true in bwrap, network through the egress proxy (relay started, call socket opened and closed) vs network off',
    () => off('true'),
    () => proxied('true'),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 100);
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bash-bench-')));
  const time = async (fn) => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  try {
    await benchNetwork(async (label, baseline, candidate) => {
      const a = [];
      const b = [];
      for (let i = 0; i < rounds + 5; i += 1) {
        const ta = await time(baseline);
        const tb = await time(candidate);
        if (i < 5) continue;
        a.push(ta);
        b.push(tb);
      }
      const ratio = median(b) / median(a);
      console.log(
        `${label}: baseline median ${median(a).toFixed(1)} ms, proxied median ${median(b).toFixed(1)} ms, ratio ${ratio.toFixed(2)}x`,
      );
      return ratio;
    }, cwd);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
  process.exit(0);
}

#!/usr/bin/env node
// The cost of sending a sandboxed command's network through the egress proxy: `true` in bwrap with
// `sandbox.network` as a policy (the call's proxy socket, a relay prepared ahead in a namespace of its
// own, the sandbox entering it) against the same sandbox with the network off, alternated in one run.
// An agent's calls come a model turn apart, so what the tool prepares between calls (the next relay,
// the next cgroup launcher) is off a call's path: each timed call, on either side, starts after a
// pause that lets the previous call's preparation finish. Run alone: `node bench/network.mjs`.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { median, toolHost } from './common.mjs';

const pauseMs = 150;

/** Alternates `rounds` timed calls of each side after 5 untimed ones; returns the ratio of the medians. */
export async function benchNetwork(cwd, rounds = Number(process.env.BENCH_ROUNDS ?? 60)) {
  const off = await toolHost({ cwd, sandbox: { provider: 'bwrap', network: false } });
  const proxied = await toolHost({ cwd, sandbox: { provider: 'bwrap', network: { allowedDomains: ['example.com'] } } });
  const timed = async (fn) => {
    await sleep(pauseMs);
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  const a = [];
  const b = [];
  for (let i = 0; i < rounds + 5; i += 1) {
    const ta = await timed(() => off('true'));
    const tb = await timed(() => proxied('true'));
    if (i < 5) continue;
    a.push(ta);
    b.push(tb);
  }
  const ratio = median(b) / median(a);
  console.log(
    `bash -c true in bwrap, network through the egress proxy vs off (${rounds} alternated rounds, ${pauseMs} ms apart): ` +
      `off ${median(a).toFixed(1)} ms, proxied ${median(b).toFixed(1)} ms, ratio ${ratio.toFixed(2)}x (+${(median(b) - median(a)).toFixed(1)} ms)`,
  );
  return ratio;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bash-bench-')));
  try {
    await benchNetwork(cwd);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
  process.exit(0);
}

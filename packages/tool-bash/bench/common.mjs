// Shared by the bench scripts: a host with the tool, and a median.
import { spawn } from 'node:child_process';
import { createHost, z } from '@deepseek-ai/dsh-core';
import { toolBash } from '../dist/index.js';

/** Spawns `file args` and resolves when it has closed, as bare as Node allows. */
export function raw(file, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.on('error', reject);
    child.stdout.resume();
    child.stderr.resume();
    child.on('close', (code) => (code === 0 ? resolve({ exitCode: code }) : reject(new Error(`${file} exited ${code}`))));
  });
}

/**
 * A host running `bash` calls: the real tool, or (with `rawTool`) a stand-in
 * whose body is a bare spawn, to separate the pipeline's cost from the tool's.
 * With `outcomes`, each call resolves with its outcome, whatever it is;
 * `close()` on the returned function closes the host.
 */
export async function toolHost(options, rawTool = false, outcomes = false) {
  const host = createHost({ defaultDecision: 'allow' });
  if (rawTool) {
    host.tools.register({
      name: 'bash',
      description: 'a bare spawn',
      input: z.object({ command: z.string() }),
      execute: (args) => raw('bash', ['-c', args.command], options.cwd),
    });
  } else {
    await host.use(toolBash(options));
  }
  let n = 0;
  const call = async (command, timeout) => {
    n += 1;
    const args = timeout === undefined ? { command } : { command, timeout };
    const { results } = await host.runStep({ calls: [{ id: `bench-${n}`, name: 'bash', args }] });
    const outcome = results[0]?.outcome;
    if (outcomes) return outcome;
    if (outcome?.status !== 'ok') throw new Error(`the bench call failed: ${JSON.stringify(outcome)}`);
    return outcome.output;
  };
  call.close = () => host.close();
  return call;
}

export function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

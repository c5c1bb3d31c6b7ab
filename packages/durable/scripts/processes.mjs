// Process and port helpers shared by the durable package's engine starters (restate-engine.mjs,
// postgres-cluster.mjs), its test fixtures, its bench and the CLI's durable tests.
import { createServer } from 'node:net';

/** A free TCP port on loopback (closed again before it is returned). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(address.port));
    });
  });
}

/** Polls `check` until it holds; throws when `child` exits first. A hang bound is the caller's. */
export async function until(what, check, child, output = () => '') {
  for (;;) {
    if (child !== undefined && child.exitCode !== null) throw new Error(`${what}: the process exited (${child.exitCode}): ${output()}`);
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Keeps the last 8 kB of a child's output. */
export function collect(child) {
  let text = '';
  const add = (chunk) => {
    text = (text + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return () => text;
}

/** Kills a process with SIGKILL and waits until it is gone. */
export async function killHard(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

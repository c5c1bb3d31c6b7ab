// Starts a real restate-server for the tests, the bench and the demo: every listener on 127.0.0.1
// on ports picked free, its data under `dir`. The npm package's bin is a Node wrapper that spawns
// the real binary, so a SIGKILL of the wrapper would orphan the server: this starts the binary.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { collect, freePort, until } from './processes.mjs';

const serverPackage = createRequire(import.meta.url).resolve('@restatedev/restate-server/package.json');
const serverBin = createRequire(serverPackage).resolve(`@restatedev/restate-server-${platform()}-${arch()}/bin/restate-server`);

export { collect, freePort, until };

/** Starts restate-server and waits until its admin API and ingress answer. */
export async function startRestate(dir, { fastRetries = false } = {}) {
  const [ingress, admin, fabric, pg] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const retries = fastRetries
    ? {
        RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL: '100ms',
        RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: '500ms',
        RESTATE_DEFAULT_RETRY_POLICY__MAX_ATTEMPTS: '100000',
      }
    : {};
  const child = spawn(serverBin, ['--no-logo', '--base-dir', join(dir, 'restate'), '--node-name', 'dsh'], {
    env: {
      PATH: process.env.PATH ?? '',
      RESTATE_LISTEN_MODE: 'tcp',
      RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabric}/`,
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
      RESTATE_ADMIN__QUERY_ENGINE__PGSQL_BIND_ADDRESS: `127.0.0.1:${pg}`,
      RESTATE_DEFAULT_NUM_PARTITIONS: '1',
      RESTATE_DISABLE_TELEMETRY: 'true',
      ...retries,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child);
  const engine = { child, output, ingressUrl: `http://127.0.0.1:${ingress}`, adminUrl: `http://127.0.0.1:${admin}` };
  try {
    await until('restate-server', async () => (await fetch(`${engine.adminUrl}/health`)).ok, child, output);
    await until('restate ingress', async () => (await fetch(`${engine.ingressUrl}/restate/health`)).ok, child, output);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return engine;
}

// Starts a private, throwaway PostgreSQL cluster for the tests, the bench and the demo: Debian's
// binaries (/usr/lib/postgresql/<newest>/bin), `initdb` into a temp dir, `postgres` listening on
// 127.0.0.1 on a free port with its unix socket in that dir. `stop()` ends it and removes the dir.
// initdb and postgres refuse to run as root: as root both run as the `postgres` system user (the
// Debian package creates it), through spawn's uid/gid, so no wrapper process sits in between and
// the child we signal is the postmaster itself.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.mjs';

const root = '/usr/lib/postgresql';

/** The newest `/usr/lib/postgresql/<version>/bin` holding initdb and postgres, or undefined. */
export function findPostgres() {
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'))) return bin;
  }
  return undefined;
}

/** Whether the DBOS tests can run, and whether their absence must fail the run (DSH_REQUIRE_POSTGRES=1). */
export function postgresStatus() {
  const bin = findPostgres();
  const required = process.env.DSH_REQUIRE_POSTGRES === '1';
  if (bin === undefined) return { ok: false, reason: `no initdb/postgres under ${root}/*/bin (apt-get install postgresql)`, required };
  if (process.getuid?.() === 0 && runAs() === undefined) {
    return { ok: false, reason: 'running as root and there is no `postgres` user to run the cluster as', required };
  }
  return { ok: true, reason: '', required };
}

export { freePort };

/** The uid and gid of the `postgres` user when this process is root (postgres refuses root), else undefined. */
function runAs() {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

function run(bin, args, user) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { ...user, env: { PATH: process.env.PATH ?? '', LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => {
      output += c;
    });
    child.stderr.on('data', (c) => {
      output += c;
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${bin} exited ${code}: ${output.slice(-4000)}`))));
  });
}

/**
 * Starts a cluster whose superuser is `dsh` (trust auth, loopback only; fsync off: it is thrown away)
 * and waits until it accepts connections. `url(database)` is a connection string for one database
 * (DBOS creates it on launch); `stop()` is idempotent and also runs when this process exits.
 */
export async function startPostgres() {
  const bin = findPostgres();
  if (bin === undefined) throw new Error(`no PostgreSQL binaries under ${root}/*/bin`);
  const user = runAs();
  const dir = await mkdtemp(join(tmpdir(), 'dsh-postgres-'));
  const data = join(dir, 'data');
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  let child;
  let stopped = false;
  const onExit = () => {
    // Last resort (a test run that ends without stop()): SIGQUIT is postgres' immediate shutdown.
    if (child?.exitCode === null && child.signalCode === null) child.kill('SIGQUIT');
  };
  process.once('exit', onExit);
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', onExit);
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run(
      join(bin, 'initdb'),
      ['-D', data, '-U', 'dsh', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync', '--no-instructions'],
      user,
    );
    const port = await freePort();
    child = spawn(
      join(bin, 'postgres'),
      // biome-ignore format: one setting a line
      [
        '-D', data,
        '-h', '127.0.0.1',
        '-p', String(port),
        '-k', dir,
        '-c', 'fsync=off',
        '-c', 'synchronous_commit=off',
        '-c', 'full_page_writes=off',
        '-c', 'max_connections=200',
      ],
      { ...user, env: { PATH: process.env.PATH ?? '', LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let log = '';
    const ready = new Promise((resolve, reject) => {
      const add = (chunk) => {
        log = (log + chunk).slice(-8000);
        if (log.includes('database system is ready to accept connections')) resolve();
      };
      child.stdout.on('data', add);
      child.stderr.on('data', add);
      child.once('exit', (code, signal) => reject(new Error(`postgres exited (${code ?? signal}) before it was ready: ${log}`)));
    });
    await ready;
    return {
      port,
      dir,
      child,
      url: (database) => `postgresql://dsh@127.0.0.1:${port}/${database}`,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

import { lstatSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { hostOwner, ownerGone } from '../internal/host-owner.js';
import { relayError } from './egress-relay.js';

// The relay's links and the proxy's call sockets are followed by socat on the host, outside every
// sandbox: a sandboxed command that could write the folder holding them (or any folder above it)
// could point them at any unix socket of the host (docker.sock) and reach it through the relay.
// So these folders are made, and checked before each call, outside every path a sandbox may write.

/** Every path a sandbox of this process was, or will be, given writable (realpaths): new private folders avoid them. */
const writableSeen = new Set<string>();

/** Records paths a sandbox of this process may write (the roots of a policy), so later private folders are made elsewhere. */
export function noteWritablePaths(paths: readonly string[]): void {
  for (const path of paths) writableSeen.add(path);
}

/** The writable path seen so far that holds `path`, if any: a folder made before it was seen is no longer safe. */
export function writablePathSeenHolding(path: string): string | undefined {
  return writablePathHolding(path, writableSeen);
}

/** The writable path (of `writable`, realpaths) that holds `path` (by path components, after realpath), if any. */
export function writablePathHolding(path: string, writable: Iterable<string>): string | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    real = path;
  }
  for (const root of writable) {
    if (real === root || root === sep || real.startsWith(`${root}${sep}`)) return root;
  }
  return undefined;
}

/** Where private folders may go, in order: the host's TMPDIR, then the user's runtime folders, then the fixed ones. */
export function candidateBases(): string[] {
  const uid = process.getuid?.();
  const xdg = process.env.XDG_RUNTIME_DIR;
  return [tmpdir(), ...(xdg ? [xdg] : []), ...(uid === undefined ? [] : [`/run/user/${uid}`]), '/dev/shm', '/tmp'];
}

/**
 * A new folder (mode 0700) named `prefix<pid namespace>-<pid>-…` on the first
 * base that is outside every writable path seen so far, removed when the
 * process exits; throws `NETWORK_RELAY_FAILED` naming each base and the
 * writable path holding it when none is safe. Folders of this prefix left on
 * that base by processes that are gone (killed outright: no exit hook ran)
 * are removed first.
 */
export function makePrivateDirectory(prefix: string): string {
  const refused: string[] = [];
  for (const base of candidateBases()) {
    const holder = writablePathHolding(base, writableSeen);
    if (holder !== undefined) {
      refused.push(`${base} (inside the writable ${holder})`);
      continue;
    }
    let path: string;
    try {
      const real = realpathSync(base);
      sweepLeftovers(real, prefix);
      path = mkdtempSync(join(real, `${prefix}${hostOwner}-`));
    } catch (error) {
      refused.push(`${base} (${(error as NodeJS.ErrnoException).code ?? 'unusable'})`);
      continue;
    }
    removeAtExit(path);
    return path;
  }
  throw relayError(`no folder for its links is outside what the sandbox may write: ${refused.join(', ')}`);
}

/**
 * Removes `prefix<pid namespace>-<pid>-…` folders under `base` whose process
 * is gone: only of this pid namespace (a pid of another cannot be looked
 * up here), only real folders of this user (never through a link).
 */
function sweepLeftovers(base: string, prefix: string): void {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const found = /^(\d+)-(\d+)-[A-Za-z0-9]{6}$/.exec(name.slice(prefix.length));
    if (found === null || !ownerGone(found[1] as string, Number(found[2]))) continue;
    const path = join(base, name);
    try {
      const stats = lstatSync(path);
      if (!stats.isDirectory() || stats.uid !== process.getuid?.()) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}

/**
 * Throws `NETWORK_RELAY_FAILED` when `folder` lies inside a path of
 * `writable`: the command would be able to redirect the relay.
 */
export function assertOutsideWritable(folder: string, writable: readonly string[], what: string): void {
  const holder = writablePathHolding(folder, writable);
  if (holder === undefined) return;
  throw relayError(
    `the ${what} ${folder} lies inside ${holder}, which the sandboxed command may write, so it could redirect the relay to any unix socket of the host; the command did not run`,
  );
}

const removedAtExit = new Set<string>();
let exitHook = false;

function removeAtExit(path: string): void {
  if (!exitHook) process.once('exit', removeAll);
  exitHook = true;
  removedAtExit.add(path);
}

/** Removes a folder made by {@link makePrivateDirectory} now (it is no longer removed at exit). */
export function removePrivateDirectory(path: string): void {
  removedAtExit.delete(path);
  rmSync(path, { recursive: true, force: true });
}

function removeAll(): void {
  for (const path of removedAtExit) {
    try {
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Best effort at exit.
    }
  }
  removedAtExit.clear();
}

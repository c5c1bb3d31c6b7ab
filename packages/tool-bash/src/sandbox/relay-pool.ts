import { type ChildProcess, spawn } from 'node:child_process';
import { readlinkSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { DshError } from '@deepseek-ai/dsh-core';
import { findExecutable } from '../internal/find-executable.js';
import { egressRelayPort, relayError } from './egress-relay.js';
import { makePrivateDirectory, removePrivateDirectory, writablePathSeenHolding } from './private-directory.js';
import type { PreparedEgress, RelayNamespace } from './provider.js';

/** How long a spare relay waits for a call before it is ended (ms): calls back to back find one ready, an idle host keeps none. */
const spareIdleMs = 10_000;

/**
 * Relays prepared ahead of the calls, one spare at a time: each is socat in
 * a network namespace of its own (made by bwrap, which brings loopback up and
 * ends it with this process), already listening on that namespace's
 * `127.0.0.1:3128` and forwarding to a link in a private directory. A call
 * takes the spare, points its link at the call's proxy socket, and runs its
 * sandbox in that namespace (`nsenter --net`); a new spare is made once the
 * call is over. So the call pays no relay exec and no wait for socat: the
 * relay listens before the command exists. Each namespace serves one call
 * and is ended with it.
 *
 * socat follows the link with the host's view of `/`, so the link's folder is
 * made outside every path a sandbox of this process may write (see
 * `makePrivateDirectory`), and `bwrap`'s `wrap` checks it against each call's
 * writable paths ({@link RelayPool.linkFolderOf}) before the command runs.
 */
export class RelayPool {
  readonly #bwrap: string;
  #directory: string | undefined;
  /** Folders given up while a call still used them: removed once no relay is taken. */
  readonly #retired: string[] = [];
  /** The link folder of each taken relay's namespace. */
  readonly #folders = new WeakMap<RelayNamespace, string>();
  #taken = 0;
  #spare: { readonly relayPath: string; readonly relay: Promise<PreparedRelay> } | undefined;
  #idle: NodeJS.Timeout | undefined;
  #slots = 0;

  constructor(bwrapPath: string) {
    this.#bwrap = bwrapPath;
  }

  /**
   * A relay listening in its own namespace, linked to `socketPath`; rejects
   * with `NETWORK_RELAY_FAILED` when none can be started (nothing ran then).
   */
  async take(relayPath: string, socketPath: string): Promise<PreparedEgress> {
    const spare = this.#spare?.relayPath === relayPath ? this.#spare.relay : undefined;
    this.#spare = undefined;
    // Counted from now: an idle close while the relay starts must not remove its folder.
    this.#taken += 1;
    let relay: PreparedRelay | undefined;
    try {
      relay = spare === undefined ? undefined : await spare.catch(() => undefined);
      // A spare whose folder a sandbox has since been given as writable is not used.
      if (relay?.alive() !== true || writablePathSeenHolding(relay.folder) !== undefined) {
        relay?.stop();
        relay = await this.#start(relayPath);
      }
      relay.link(socketPath);
    } catch (error) {
      relay?.stop();
      this.#taken -= 1;
      throw DshError.isInstance(error) ? error : relayError(`its link could not be made: ${(error as Error).message}`);
    }
    const taken = relay;
    this.#folders.set(taken.namespace, taken.folder);
    let released = false;
    return {
      namespace: taken.namespace,
      release: () => {
        if (released) return;
        released = true;
        this.#taken -= 1;
        taken.stop();
        this.#removeUnused();
        this.#refillSoon(relayPath);
      },
    };
  }

  /** The folder holding the link that the relay of `namespace` (taken from this pool) follows. */
  linkFolderOf(namespace: RelayNamespace): string | undefined {
    return this.#folders.get(namespace);
  }

  /**
   * Gives up the link folder (a call's policy may write it): its spare is
   * ended and the next relay gets a new folder, away from every writable path
   * seen; relays taken from it keep it until they are released.
   */
  retire(folder: string): void {
    if (this.#directory !== folder) return;
    this.#endSpare();
    this.#directory = undefined;
    this.#retired.push(folder);
    this.#removeUnused();
  }

  /** Ends the spare relay, if any, and removes the link folders when no call holds a relay. */
  close(): void {
    clearTimeout(this.#idle);
    this.#endSpare();
    if (this.#taken > 0) return;
    if (this.#directory !== undefined) this.#retired.push(this.#directory);
    this.#directory = undefined;
    this.#removeUnused();
  }

  #endSpare(): void {
    const spare = this.#spare;
    this.#spare = undefined;
    void spare?.relay.then((relay) => relay.stop()).catch(() => undefined);
  }

  #removeUnused(): void {
    if (this.#taken > 0) return;
    for (const folder of this.#retired.splice(0)) removePrivateDirectory(folder);
  }

  /**
   * The next spare is made once the call is over, off its path: `spawn` blocks this thread until
   * bwrap has exec'd (about 7 ms here), and its start would compete with the call for the CPU.
   */
  #refillSoon(relayPath: string): void {
    setImmediate(() => {
      if (this.#spare === undefined) this.#refill(relayPath);
    }).unref();
  }

  #refill(relayPath: string): void {
    const relay = this.#start(relayPath);
    relay.catch(() => undefined);
    this.#spare = { relayPath, relay };
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.close(), spareIdleMs);
    this.#idle.unref();
  }

  #start(relayPath: string): Promise<PreparedRelay> {
    // A folder made before a sandbox was given a path that holds it is given up.
    if (this.#directory !== undefined && writablePathSeenHolding(this.#directory) !== undefined) this.retire(this.#directory);
    try {
      this.#directory ??= makePrivateDirectory('dsh-relay-');
    } catch (error) {
      return Promise.reject(error);
    }
    return startPreparedRelay(this.#bwrap, relayPath, this.#directory, `relay-${++this.#slots}.sock`);
  }
}

/** One relay of the pool. */
interface PreparedRelay {
  readonly namespace: RelayNamespace;
  /** The folder of the link socat follows. */
  readonly folder: string;
  alive(): boolean;
  /** Points the relay at the call's socket. */
  link(socketPath: string): void;
  stop(): void;
}

/** The sandbox must enter the relay's user namespace too unless this process is root (which has every capability in it already). */
const enterUserNamespace = process.getuid?.() !== 0;

/** util-linux's `nsenter`, looked up once. */
let nsenter: string | undefined | null = null;

function startPreparedRelay(bwrap: string, relayPath: string, folder: string, linkName: string): Promise<PreparedRelay> {
  const linkPath = join(folder, linkName);
  if (nsenter === null) nsenter = findExecutable('nsenter') ?? undefined;
  if (nsenter === undefined) return Promise.reject(relayError('nsenter (util-linux) was not found'));
  const child = spawn(
    bwrap,
    [
      '--die-with-parent',
      '--unshare-user',
      '--unshare-net',
      // socat reaches the call's socket by its host path, through the link; it writes nothing.
      '--ro-bind',
      '/',
      '/',
      '--info-fd',
      '3',
      '--',
      relayPath,
      '-d',
      '-d',
      `TCP-LISTEN:${egressRelayPort},bind=127.0.0.1,fork,reuseaddr`,
      `UNIX-CONNECT:${linkPath}`,
    ],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
  );
  // A spare must not keep the host's event loop alive.
  child.unref();
  const stderr = child.stderr as Readable & { unref?: () => void };
  const info = child.stdio[3] as Readable & { unref?: () => void };
  stderr.unref?.();
  info.unref?.();
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    try {
      unlinkSync(linkPath);
    } catch {
      // Never linked.
    }
  };
  return Promise.all([childPidOf(info), listening(child)]).then(([pid, problem]) => {
    if (problem !== undefined || pid === undefined) {
      stop();
      throw relayError(problem ?? 'bwrap did not name the namespace it made');
    }
    const namespace: RelayNamespace = {
      net: `/proc/${pid}/ns/net`,
      ...(enterUserNamespace ? { user: `/proc/${pid}/ns/user` } : {}),
      nsenter: nsenter as string,
    };
    return {
      namespace,
      folder,
      alive: () => !stopped && child.exitCode === null && child.signalCode === null,
      link: (socketPath) => {
        // A link left by a relay slot of the same number (a pool that restarted) is replaced.
        rmSync(linkPath, { force: true });
        symlinkSync(socketPath, linkPath);
        if (readlinkSync(linkPath) !== socketPath) throw relayError('the relay link could not be made');
      },
      stop,
    };
  });
}

/** Reads bwrap's info stream until it names the namespace's first process; undefined when it ends without one. */
function childPidOf(info: Readable): Promise<number | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const found = /"child-pid":\s*(\d+)/.exec(text);
      if (found === null) return;
      info.off('data', onData);
      info.resume();
      resolve(Number(found[1]));
    };
    info.on('data', onData);
    info.once('close', () => resolve(undefined));
    info.on('error', () => undefined);
  });
}

/** Waits for socat's "listening on" notice; the problem (what was printed) when the relay exits first. */
function listening(child: ChildProcess): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const stderr = child.stderr as Readable;
    const onData = (chunk: Buffer): void => {
      text = (text + chunk.toString('utf8')).slice(-4000);
      if (!/listening on/.test(text)) return;
      stderr.off('data', onData);
      // socat logs every connection from now on: drain it.
      stderr.resume();
      resolve(undefined);
    };
    stderr.on('data', onData);
    stderr.on('error', () => undefined);
    child.once('error', (error) => resolve(error.message));
    child.once('exit', (code, signal) => resolve(`it ended (${signal ?? `exit code ${code}`}) before it listened: ${text.trim()}`));
  });
}

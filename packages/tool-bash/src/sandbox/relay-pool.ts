import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readlinkSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { findExecutable } from '../internal/find-executable.js';
import { egressRelayPort, relayError } from './egress-relay.js';
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
 */
export class RelayPool {
  readonly #bwrap: string;
  #directory: string | undefined;
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
    let relay = spare === undefined ? undefined : await spare.catch(() => undefined);
    if (relay?.alive() !== true) {
      relay?.stop();
      relay = await this.#start(relayPath);
    }
    relay.link(socketPath);
    const taken = relay;
    return {
      namespace: taken.namespace,
      release: () => {
        taken.stop();
        this.#refillSoon(relayPath);
      },
    };
  }

  /** Ends the spare relay, if any. */
  close(): void {
    clearTimeout(this.#idle);
    const spare = this.#spare;
    this.#spare = undefined;
    void spare?.relay.then((relay) => relay.stop()).catch(() => undefined);
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
    this.#directory ??= mkdtempSync(join(tmpdir(), 'dsh-relay-'));
    return startPreparedRelay(this.#bwrap, relayPath, join(this.#directory, `relay-${++this.#slots}.sock`));
  }
}

/** One relay of the pool. */
interface PreparedRelay {
  readonly namespace: RelayNamespace;
  alive(): boolean;
  /** Points the relay at the call's socket. */
  link(socketPath: string): void;
  stop(): void;
}

/** The sandbox must enter the relay's user namespace too unless this process is root (which has every capability in it already). */
const enterUserNamespace = process.getuid?.() !== 0;

/** util-linux's `nsenter`, looked up once. */
let nsenter: string | undefined | null = null;

function startPreparedRelay(bwrap: string, relayPath: string, linkPath: string): Promise<PreparedRelay> {
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

import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ToolError } from '@deepseek-ai/dsh-core';
import { proxyEnvironment } from '@deepseek-ai/dsh-egress';
import { BashErrorCode } from '../errors.js';
import { findExecutable } from '../internal/find-executable.js';
import type { EgressRelay } from './provider.js';

/** The loopback port of the relay in the sandbox: HTTP proxy and SOCKS5 on one port, as the proxy tells them apart by the first byte. */
export const egressRelayPort = 3128;

/** bwrap writes the sandbox's pid on this descriptor (`--info-fd`)… */
export const relayInfoFd = 5;
/** …and runs the command only once the host wrote on this one (`--block-fd`). */
export const relayGateFd = 6;

/** The bwrap arguments that hold the command until the relay listens. */
export function relayGateArgs(): string[] {
  return ['--info-fd', String(relayInfoFd), '--block-fd', String(relayGateFd)];
}

/**
 * `HTTP(S)_PROXY`, `ALL_PROXY` (SOCKS5, names resolved by the proxy),
 * `NO_PROXY` and `GIT_SSH_COMMAND`, all pointing at the relay. No token: the
 * socket is the call's own.
 */
export function egressEnvironment(): Record<string, string> {
  return proxyEnvironment({ httpPort: egressRelayPort, socksPort: egressRelayPort });
}

/** util-linux's `nsenter` and `setpriv`, looked up once. */
let tools: { readonly nsenter: string | undefined; readonly setpriv: string | undefined } | undefined;

/** The relay of one call, started from the host; `stop` ends it (and every connection it forked). */
export interface RunningRelay {
  /** Resolves once the command was let go with the relay listening; rejects (with the sandbox killed) when it cannot be. */
  readonly ready: Promise<void>;
  stop(): void;
}

/**
 * Starts the call's relay outside the sandbox, so the sandbox's seccomp
 * filter can deny `AF_UNIX` to everything inside: socat runs in the host's
 * mount namespace (it reaches the call's socket by its host path) but in the
 * sandbox's user and network namespaces (`nsenter`), listening on the
 * sandbox's loopback. bwrap holds the command (`--block-fd`) until socat
 * listens. `setpriv --pdeathsig` ends socat with this process; `stop` ends it
 * with the call. Should the relay not start, the launcher's process group is
 * killed before the gate could open, so the command never runs without it.
 */
export function startRelay(launcher: ChildProcess, egress: EgressRelay): RunningRelay {
  let relay: ChildProcess | undefined;
  let stopped = false;
  const stop = (): void => {
    stopped = true;
    killGroup(relay?.pid);
  };
  let opened = false;
  // A launcher gone before the gate opened (killed by a timeout, say) takes the relay with it.
  launcher.once('exit', () => {
    if (!opened) stop();
  });
  const ready = (async () => {
    const sandboxPid = await childPidOf(pipeOf<Readable>(launcher, relayInfoFd));
    // No pid: bwrap failed before it made the sandbox, and its own exit says why.
    if (sandboxPid === undefined || stopped) return;
    tools ??= { nsenter: findExecutable('nsenter'), setpriv: findExecutable('setpriv') };
    const { nsenter, setpriv } = tools;
    if (nsenter === undefined || setpriv === undefined) {
      killGroup(launcher.pid);
      throw relayError(`${nsenter === undefined ? 'nsenter' : 'setpriv'} (util-linux) was not found`);
    }
    relay = spawn(
      setpriv,
      [
        '--pdeathsig',
        'KILL',
        nsenter,
        `--target=${sandboxPid}`,
        '--user',
        '--net',
        '--preserve-credentials',
        '--',
        egress.relayPath,
        '-d',
        '-d',
        `TCP-LISTEN:${egressRelayPort},bind=127.0.0.1,fork,reuseaddr`,
        `UNIX-CONNECT:${egress.socketPath}`,
      ],
      { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
    );
    const problem = await listening(relay);
    if (stopped) return;
    if (problem !== undefined) {
      killGroup(launcher.pid);
      stop();
      throw relayError(problem);
    }
    const gate = pipeOf<Writable>(launcher, relayGateFd);
    gate?.on('error', () => undefined);
    opened = true;
    gate?.end('1');
  })();
  return { ready, stop };
}

/** Reads bwrap's info stream until it names the sandbox's pid; undefined when it ends without one. */
function childPidOf(info: Readable | null): Promise<number | undefined> {
  if (info === null) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let text = '';
    const done = (pid: number | undefined): void => {
      info.off('data', onData);
      info.off('close', onClose);
      // Keep reading what bwrap writes later, so it never blocks on a full pipe.
      info.resume();
      resolve(pid);
    };
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const found = /"child-pid":\s*(\d+)/.exec(text);
      if (found !== null) done(Number(found[1]));
    };
    const onClose = (): void => done(undefined);
    info.on('data', onData);
    info.once('close', onClose);
    info.on('error', () => undefined);
  });
}

/** Waits for socat's "listening on" notice; the problem (what it printed) when it exits first. */
function listening(relay: ChildProcess): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const stderr = relay.stderr as Readable;
    const onData = (chunk: Buffer): void => {
      text = (text + chunk.toString('utf8')).slice(-4000);
      if (/listening on/.test(text)) {
        stderr.off('data', onData);
        // socat logs every connection from now on: drain it.
        stderr.resume();
        resolve(undefined);
      }
    };
    stderr.on('data', onData);
    stderr.on('error', () => undefined);
    relay.once('error', (error) => resolve(error.message));
    relay.once('exit', (code, signal) => resolve(`it ended (${signal ?? `exit code ${code}`}) before it listened: ${text.trim()}`));
  });
}

/** The launcher's pipe on descriptor `fd` (`SandboxCommand.pipes`); node types `stdio` as five entries. */
function pipeOf<T extends Readable | Writable>(launcher: ChildProcess, fd: number): T | null {
  return ((launcher.stdio as readonly unknown[])[fd] as T | undefined) ?? null;
}

function relayError(problem: string): ToolError {
  return new ToolError(
    BashErrorCode.NETWORK_RELAY_FAILED,
    `the network relay could not be started in the sandbox's network namespace, so the command did not run: ${problem}`,
  );
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

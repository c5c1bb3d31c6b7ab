import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { SandboxCommand } from '../sandbox/provider.js';
import type { CallCgroup } from './cgroups.js';
import { type NamespaceLauncher, namespaceLauncherStatusFd, namespaceLaunchers } from './namespace-launchers.js';
import type { OutputCapture } from './output-capture.js';
import { type CommandStatus, commandStatus, inPidNamespace, type PidNamespaceSupport, pidNamespaceSupport } from './pid-namespace.js';
import { launcherCommand, launcherPipes, type PreparedLauncher } from './prepared-launchers.js';
import { leftovers, type ProcessTree, terminateTree } from './terminate.js';

/** Why the tool stopped a command before it finished by itself. */
export type StopCause =
  | { readonly kind: 'timeout'; readonly timeoutMs: number }
  | { readonly kind: 'abort'; readonly reason: unknown }
  | { readonly kind: 'output-limit'; readonly maxBytes: number };

/** Everything needed to run one command. */
export interface RunRequest {
  readonly command: SandboxCommand;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Whether to open fd 3 for the shell's report (its final working directory). */
  readonly reportChannel: boolean;
  /** `NAME=value` present in the environment of every process of this call. */
  readonly marker: string;
  readonly containsProcessTree: boolean;
  readonly timeoutMs: number;
  readonly killGraceMs: number;
  /** Whether to look for escaped processes (by marker) after a normal exit too. */
  readonly sweep: boolean;
  readonly maxBytes: number;
  readonly signal: AbortSignal;
  readonly capture: OutputCapture;
  /** The call's cgroup, joined by its first process; removed once the call settles. */
  readonly cgroup?: CallCgroup | undefined;
  /** A launcher already inside `cgroup` that runs the command instead of a fresh spawn. */
  readonly launcher?: PreparedLauncher | undefined;
}

/** How the process ended. */
export interface RunOutcome {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stop: StopCause | undefined;
  /** Whether SIGKILL was needed to stop the tree. */
  readonly escalated: boolean;
  /** Processes that could not be killed (empty in practice). */
  readonly survivors: readonly number[];
  /** What the shell wrote on fd 3 (its final working directory), if anything. */
  readonly report: string;
  /** Why the sandbox could not be finished from outside (`SandboxCommand.attach`): the command did not run. */
  readonly setupError?: unknown;
  readonly durationMs: number;
}

/** The spawn itself failed (no such program, bad cwd, …). */
export class SpawnError extends Error {
  readonly errno: string | undefined;
  constructor(error: NodeJS.ErrnoException) {
    super(error.message);
    this.errno = error.code;
  }
}

/** How long to wait for the pipes to close once every process of the tree is gone. */
const pipeCloseMs = 1_000;
/** How long the pipes may stay open after a normal exit before the tool looks for escaped processes. */
const quickCloseMs = 25;
const reportLimit = 64 * 1024;
/** How long the scans after a normal exit may look for leftovers (they never block the event loop). */
const leftoverScanMs = 3_000;

/**
 * Runs the command (see {@link startProcess}). A call that nothing else
 * contains (no sandbox's PID namespace, no cgroup with `cgroup.kill`) runs in
 * a PID namespace of its own where the host allows it (`pid-namespace.ts`),
 * so it settles only once every process it started is gone.
 */
export async function runProcess(request: RunRequest): Promise<RunOutcome> {
  const uncontained = !request.containsProcessTree && request.cgroup?.killable !== true && request.launcher === undefined;
  const support = uncontained && process.platform === 'linux' ? await pidNamespaceSupport() : undefined;
  if (support?.ok !== true) return startProcess(request, undefined);
  // A namespace made ahead of the call takes unshare's and the init's start-up off its path.
  const viaLauncher = launcherCommand(request.command, request.env);
  const launcher = viaLauncher === undefined ? undefined : namespaceLaunchers(support, request.killGraceMs).take();
  return launcher === undefined || viaLauncher === undefined
    ? startProcess(request, { support })
    : startProcess({ ...request, command: viaLauncher }, { launcher });
}

/** How a call gets its own PID namespace: a fresh `unshare`, or a launcher made ahead. */
type OwnNamespace = { readonly support: PidNamespaceSupport & { ok: true } } | { readonly launcher: NamespaceLauncher };

/**
 * Spawns the command in its own process group (session), stdin from
 * `/dev/null`, stdout/stderr into the capture and (when asked) fd 3 as a side channel, and
 * settles once the leader has exited and nothing of its tree is left: on
 * timeout, abort or output flood the tree is terminated (SIGTERM, grace,
 * SIGKILL); after a normal exit, leftovers (background jobs, escapees with the
 * marker) are terminated the same way. Never waits on a pipe that a stray
 * process could hold open forever. In the call's own PID namespace the init
 * reports the command's exit and gives its leftovers their grace itself.
 */
function startProcess(request: RunRequest, namespace: OwnNamespace | undefined): Promise<RunOutcome> {
  const started = performance.now();
  let child: ChildProcess;
  /** Where the namespace's init reports the command's exit (the next descriptor after the command's own). */
  let statusFd: number | undefined;
  const launcher: Pick<PreparedLauncher, 'child' | 'start'> | undefined =
    request.launcher ?? (namespace !== undefined && 'launcher' in namespace ? namespace.launcher : undefined);
  if (launcher !== undefined) {
    child = launcher.child;
    if (launcher !== request.launcher) statusFd = namespaceLauncherStatusFd;
    launcher.start(request.command, request.cwd, request.env, request.reportChannel);
    // The launcher has every descriptor; the ones this call does not use are closed on its side.
    if (!request.reportChannel) child.stdio[3]?.destroy();
    if ((request.command.inputs ?? []).length === 0) child.stdio[4]?.destroy();
    for (const fd of launcherPipes) if (!(request.command.pipes ?? []).includes(fd)) child.stdio[fd]?.destroy();
  } else
    try {
      const stdio = stdioOf(request.reportChannel, request.command);
      const support = namespace !== undefined && 'support' in namespace ? namespace.support : undefined;
      if (support !== undefined) statusFd = stdio.push('pipe') - 1;
      const command =
        support === undefined || statusFd === undefined
          ? request.command
          : inPidNamespace(request.command, support, statusFd, request.killGraceMs);
      child = spawn(command.file, [...command.args], {
        cwd: request.cwd,
        env: request.env,
        detached: true,
        stdio,
        windowsHide: true,
      });
    } catch (error) {
      void request.cgroup?.release();
      return Promise.reject(new SpawnError(error as NodeJS.ErrnoException));
    }
  feedInputs(child, request.command);
  let setupError: unknown;
  const attached = request.command.attach?.(child).catch((error: unknown) => {
    setupError = error;
  });
  return new Promise<RunOutcome>((resolve, reject) => {
    const stdout = child.stdout as Readable;
    const stderr = child.stderr as Readable;
    const side = request.reportChannel ? (child.stdio[3] as Readable) : undefined;
    const streams = side === undefined ? [stdout, stderr] : [stdout, stderr, side];
    let report = '';
    let stop: StopCause | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let stopping: Promise<{ escalated: boolean; survivors: readonly number[] }> | undefined;
    let finished = false;
    /** The init's report (own PID namespace): once it has a first line, the command itself has exited. */
    const statusStream = statusFd === undefined ? undefined : (child.stdio[statusFd] as Readable);
    let statusText = '';
    let commandExit: CommandStatus | undefined;

    const tree: ProcessTree = {
      pid: child.pid ?? -1,
      marker: request.marker,
      containsProcessTree: request.containsProcessTree,
      ownInit: statusStream !== undefined,
      hasExited: () => exit !== undefined,
      // A cgroup that only carries limits (a sandbox's) still lists who gets SIGTERM; only a killable one is watched.
      cgroup: request.cgroup,
    };

    const stopTree = (cause: StopCause): void => {
      // Without a pid the spawn failed and 'error' follows; never signal pid -1's negation (init).
      // Once the command has exited, its namespace's init gives the leftovers their grace itself.
      if (stop !== undefined || exit !== undefined || commandExit !== undefined || child.pid === undefined) return;
      stop = cause;
      stopping = terminateTree(tree, request.killGraceMs);
      // A leader that survives SIGKILL (stuck in the kernel) never sends 'exit': settle without it.
      void stopping.then((t) => {
        if (exit === undefined && t.survivors.includes(tree.pid)) void settle();
      });
    };

    const onData = (name: 'stdout' | 'stderr', stream: Readable) => (chunk: Buffer) => {
      if (request.capture.push(name, chunk) === 'limit') stopTree({ kind: 'output-limit', maxBytes: request.maxBytes });
      const drained = request.capture.whenDrained();
      if (drained !== undefined && !stream.isPaused()) {
        stdout.pause();
        stderr.pause();
        drained.then(() => {
          stdout.resume();
          stderr.resume();
        });
      }
    };
    stdout.on('data', onData('stdout', stdout));
    stderr.on('data', onData('stderr', stderr));
    side?.setEncoding('utf8');
    side?.on('data', (text: string) => {
      if (report.length < reportLimit) report += text;
    });
    for (const stream of streams) stream.on('error', () => undefined);
    statusStream?.on('error', () => undefined);
    statusStream?.setEncoding('utf8');
    statusStream?.on('data', (text: string) => {
      if (statusText.length < reportLimit) statusText += text;
      if (commandExit === undefined && statusText.includes('\n')) {
        commandExit = commandStatus(statusText);
        // The command is over (as a plain shell's 'exit'): its deadline and abort no longer apply.
        if (commandExit !== undefined) cleanup();
      }
    });

    const timer = setTimeout(() => stopTree({ kind: 'timeout', timeoutMs: request.timeoutMs }), request.timeoutMs);
    const onAbort = (): void => stopTree({ kind: 'abort', reason: request.signal.reason });
    request.signal.addEventListener('abort', onAbort, { once: true });

    const cleanup = (): void => {
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
    };

    child.once('error', (error: NodeJS.ErrnoException) => {
      // Only a failed spawn lands here before 'exit' (kill errors are not emitted for signals we send by pid).
      if (exit !== undefined || finished) return;
      finished = true;
      cleanup();
      for (const stream of streams) stream.destroy();
      void request.cgroup?.release();
      reject(new SpawnError(error));
    });

    child.once('exit', (code, signal) => {
      exit = { code, signal };
      cleanup();
      void settle();
    });

    const settle = async (): Promise<void> => {
      if (finished) return;
      finished = true;
      let termination = stopping === undefined ? undefined : await stopping;
      if (termination === undefined && tree.pid > 0) {
        // Every descendant inherits the pipes (fd 3 too); when they all close with the shell, nothing
        // escaped that kept them, and the costly scan for the marker can be skipped.
        const closed = await allClosed(streams, quickCloseMs);
        if (await leftovers(tree, request.sweep && !closed, leftoverScanMs)) termination = await terminateTree(tree, request.killGraceMs);
      }
      await allClosed(statusStream === undefined ? streams : [...streams, statusStream], pipeCloseMs);
      for (const stream of streams) stream.destroy();
      statusStream?.destroy();
      // In its own namespace the command's exit is the init's report; unshare's own exit only when the init was killed first.
      const reported = statusStream === undefined ? undefined : commandStatus(statusText);
      const ended = reported ?? { code: exit?.code ?? null, signal: exit?.signal ?? null, escalated: false };
      // Settles once the launcher is gone: its pipes closed.
      await attached;
      // Settled only once the call's cgroup is gone (or handed to the background retry after a bounded wait).
      await request.cgroup?.release();
      resolve({
        exitCode: ended.code,
        signal: ended.signal,
        stop,
        escalated: (termination?.escalated ?? false) || ended.escalated,
        survivors: termination?.survivors ?? [],
        report,
        durationMs: Math.round(performance.now() - started),
        ...(setupError === undefined ? {} : { setupError }),
      });
    };

    if (request.signal.aborted) onAbort();
  });
}

/** stdin `/dev/null`, stdout and stderr piped, fd 3 for the report, then the launcher's inputs and pipes (gaps closed). */
export function stdioOf(reportChannel: boolean, command: SandboxCommand): ('ignore' | 'pipe')[] {
  const stdio: ('ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe', reportChannel ? 'pipe' : 'ignore'];
  for (const fd of [...(command.inputs ?? []).map((input) => input.fd), ...(command.pipes ?? [])]) {
    while (stdio.length <= fd) stdio.push('ignore');
    stdio[fd] = 'pipe';
  }
  return stdio;
}

/** Writes each input into its pipe and closes it; the launcher reads to EOF. */
export function feedInputs(child: ChildProcess, command: SandboxCommand): void {
  for (const { fd, data } of command.inputs ?? []) {
    const pipe = child.stdio[fd] as (Writable & Readable) | null | undefined;
    if (pipe === null || pipe === undefined) continue;
    // A launcher that dies first makes the write fail (EPIPE); its exit tells the story.
    pipe.on('error', () => undefined);
    pipe.end(data);
    // Read the launcher's end-of-file so the socket closes by itself.
    pipe.resume();
  }
}

/** Resolves true once every stream has closed, or false after `ms`. */
function allClosed(streams: readonly Readable[], ms: number): Promise<boolean> {
  const open = streams.filter((s) => !s.closed && !s.destroyed);
  if (open.length === 0) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    let left = open.length;
    const timer = setTimeout(() => resolve(false), ms);
    for (const stream of open) {
      stream.once('close', () => {
        left -= 1;
        if (left === 0) {
          clearTimeout(timer);
          resolve(true);
        }
      });
    }
  });
}

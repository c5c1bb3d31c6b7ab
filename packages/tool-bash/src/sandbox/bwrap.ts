import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { feedInputs, stdioOf } from '../internal/run-process.js';
import { type Mask, masksOf } from './masks.js';
import type { SandboxCommand, SandboxPolicy, SandboxProbe, SandboxProvider } from './provider.js';
import { seccompFilter } from './seccomp.js';

/** Options of the bubblewrap provider. */
export interface BwrapSandboxOptions {
  /** The `bwrap` executable; looked up on `PATH` by default. */
  readonly bwrapPath?: string;
  /** How long the probe run may take before it counts as a failure (ms); 10 s by default. */
  readonly probeTimeoutMs?: number;
  /**
   * `prlimit` (util-linux), run inside the sandbox to set `RLIMIT_NPROC` when
   * the policy has `maxProcesses`; found on `PATH` by default. Not used when
   * the host runs as root: the kernel does not apply that limit to uid 0.
   */
  readonly prlimitPath?: string;
}

/** The descriptor bwrap reads the seccomp filter from (3 is the tool's report channel). */
export const seccompFd = 4;

/**
 * The bubblewrap sandbox: root read-only, the workspace roots writable, the
 * read-only paths re-bound read-only, secrets hidden, a private `/tmp`, no
 * network unless allowed, fresh PID/IPC/UTS/user namespaces, no
 * capabilities, and a seccomp filter (see `seccompFilter`). The cap drop and
 * user namespace are what make it a sandbox when the host runs as root
 * (without them, root inside bwrap can remount `/` read-write).
 */
export function bwrapSandbox(options: BwrapSandboxOptions = {}): SandboxProvider {
  const bwrap = options.bwrapPath ?? 'bwrap';
  const probeTimeoutMs = options.probeTimeoutMs ?? 10_000;
  const filters = { on: seccompFilter(process.arch, true), off: seccompFilter(process.arch, false) };
  // The kernel exempts uid 0 of the initial namespace from RLIMIT_NPROC, and bwrap maps root to root.
  const prlimit = process.getuid?.() === 0 ? undefined : (options.prlimitPath ?? onPath('prlimit'));
  const wrap = (command: SandboxCommand, policy: SandboxPolicy): SandboxCommand => {
    const filter = policy.network ? filters.on : filters.off;
    const limit = policy.maxProcesses !== undefined && prlimit !== undefined ? [prlimit, `--nproc=${policy.maxProcesses}`, '--'] : [];
    return {
      file: bwrap,
      args: [
        ...bwrapArgs(policy),
        ...(filter === undefined ? [] : ['--seccomp', String(seccompFd)]),
        '--',
        ...limit,
        command.file,
        ...command.args,
      ],
      inputs: filter === undefined ? [] : [{ fd: seccompFd, data: filter }],
    };
  };
  return Object.freeze({
    name: 'bwrap',
    containsProcessTree: true,
    wrap,
    environment: () => ({ TMPDIR: '/tmp' }),
    // The probe runs the real profile and checks from inside that `/` is not writable.
    probe: (policy: SandboxPolicy): Promise<SandboxProbe> =>
      filters.off === undefined
        ? Promise.resolve({ ok: false, reason: `no seccomp filter for the ${process.arch} architecture (x64 and arm64 have one)` })
        : probeRun(wrap({ file: '/bin/sh', args: ['-c', 'if [ -w / ]; then exit 3; fi'] }, policy), probeTimeoutMs),
  });
}

/**
 * The bwrap arguments for a policy, in the order bwrap needs: `/` read-only
 * first, then the fresh `/dev`, `/proc` and `/tmp`, then binds (shorter paths
 * first, so a nested bind lands on top of its parent), then read-only
 * re-binds, then the masks over the deny-read paths that exist (a mask that
 * holds a root goes before the binds, so the root stays usable). The seccomp
 * filter is added by the provider's `wrap`, which also feeds it.
 */
export function bwrapArgs(policy: SandboxPolicy): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all'];
  if (policy.network) args.push('--share-net');
  args.push('--unshare-user', '--disable-userns', '--cap-drop', 'ALL');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  const bound = [...policy.writableRoots, ...policy.extraReadablePaths, ...policy.readOnlyPaths];
  const masks = masksOf(policy.denyReadPaths ?? []);
  const holdsBound = (mask: Mask): boolean => bound.some((path) => path === mask.path || path.startsWith(`${mask.path}/`));
  const pushMask = (mask: Mask): void => {
    if (mask.directory) args.push('--tmpfs', mask.path, '--remount-ro', mask.path);
    else args.push('--ro-bind', '/dev/null', mask.path);
  };
  for (const mask of masks) if (holdsBound(mask)) pushMask(mask);
  for (const root of byDepth(policy.writableRoots)) args.push('--bind', root, root);
  for (const path of byDepth(policy.extraReadablePaths)) args.push('--ro-bind-try', path, path);
  for (const path of byDepth(policy.readOnlyPaths)) args.push('--ro-bind-try', path, path);
  for (const mask of masks) if (!holdsBound(mask)) pushMask(mask);
  args.push('--chdir', policy.cwd);
  return args;
}

function byDepth(paths: readonly string[]): string[] {
  return [...new Set(paths)].sort((a, b) => a.length - b.length || a.localeCompare(b));
}

/** The first executable `name` on `PATH`, as an absolute path. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function probeRun(command: SandboxCommand, timeoutMs: number): Promise<SandboxProbe> {
  return new Promise((resolve) => {
    let stderr = '';
    let settled = false;
    const finish = (probe: SandboxProbe): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(probe);
    };
    const stdio = stdioOf(false, command);
    stdio[1] = 'ignore';
    const child = spawn(command.file, command.args, { stdio, detached: true });
    feedInputs(child, command);
    const timer = setTimeout(() => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      finish({ ok: false, reason: `the bwrap probe did not finish within ${timeoutMs} ms` });
    }, timeoutMs);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      if (stderr.length < 2000) stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish({
        ok: false,
        reason:
          error.code === 'ENOENT'
            ? `bubblewrap is not installed ("${command.file}" was not found)`
            : `bwrap could not start: ${error.message}`,
      });
    });
    child.on('close', (code, signal) => {
      if (code === 0) finish({ ok: true, detail: `${command.file} works` });
      else if (code === 3) finish({ ok: false, reason: 'bwrap ran, but "/" was writable inside it, so it is not a sandbox here' });
      else {
        const why = stderr.trim().split('\n').slice(0, 3).join('; ');
        finish({ ok: false, reason: `bwrap failed (${signal ?? `exit code ${code}`})${why === '' ? '' : `: ${why}`}` });
      }
    });
  });
}

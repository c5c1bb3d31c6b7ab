import { spawn } from 'node:child_process';
import type { SandboxCommand, SandboxPolicy, SandboxProbe, SandboxProvider } from './provider.js';

/** Options of the bubblewrap provider. */
export interface BwrapSandboxOptions {
  /** The `bwrap` executable; looked up on `PATH` by default. */
  readonly bwrapPath?: string;
  /** How long the probe run may take before it counts as a failure (ms); 10 s by default. */
  readonly probeTimeoutMs?: number;
}

/**
 * The bubblewrap sandbox: root read-only, the workspace roots writable, the
 * read-only paths re-bound read-only, a private `/tmp`, no network unless
 * allowed, fresh PID/IPC/UTS/user namespaces, and no capabilities. The cap
 * drop and user namespace are what make it a sandbox when the host runs as
 * root (without them, root inside bwrap can remount `/` read-write).
 */
export function bwrapSandbox(options: BwrapSandboxOptions = {}): SandboxProvider {
  const bwrap = options.bwrapPath ?? 'bwrap';
  const probeTimeoutMs = options.probeTimeoutMs ?? 10_000;
  const wrap = (command: SandboxCommand, policy: SandboxPolicy): SandboxCommand => ({
    file: bwrap,
    args: [...bwrapArgs(policy), '--', command.file, ...command.args],
  });
  return Object.freeze({
    name: 'bwrap',
    containsProcessTree: true,
    wrap,
    environment: () => ({ TMPDIR: '/tmp' }),
    // The probe runs the real profile and checks from inside that `/` is not writable.
    probe: (policy: SandboxPolicy) =>
      probeRun(wrap({ file: '/bin/sh', args: ['-c', 'if [ -w / ]; then exit 3; fi'] }, policy), probeTimeoutMs),
  });
}

/**
 * The bwrap arguments for a policy, in the order bwrap needs: `/` read-only
 * first, then the fresh `/dev`, `/proc` and `/tmp`, then binds (shorter paths
 * first, so a nested bind lands on top of its parent), then read-only re-binds.
 */
export function bwrapArgs(policy: SandboxPolicy): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all'];
  if (policy.network) args.push('--share-net');
  args.push('--unshare-user', '--disable-userns', '--cap-drop', 'ALL');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  for (const root of byDepth(policy.writableRoots)) args.push('--bind', root, root);
  for (const path of byDepth(policy.extraReadablePaths)) args.push('--ro-bind-try', path, path);
  for (const path of byDepth(policy.readOnlyPaths)) args.push('--ro-bind-try', path, path);
  args.push('--chdir', policy.cwd);
  return args;
}

function byDepth(paths: readonly string[]): string[] {
  return [...new Set(paths)].sort((a, b) => a.length - b.length || a.localeCompare(b));
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
    const child = spawn(command.file, command.args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
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

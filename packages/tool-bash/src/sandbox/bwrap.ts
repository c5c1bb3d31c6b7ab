import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { feedInputs, stdioOf } from '../internal/run-process.js';
import { egressEnvironment, inRelayNamespace, relayError } from './egress-relay.js';
import { type Mask, masksOf } from './masks.js';
import { holdStubs, sweepStaleStubs } from './mount-stubs.js';
import { assertOutsideWritable, noteWritablePaths } from './private-directory.js';
import { byDepth, protectedLayout } from './protected-paths.js';
import type { EgressRelay, RelayNamespace, SandboxCommand, SandboxPolicy, SandboxProbe, SandboxProvider } from './provider.js';
import { RelayPool } from './relay-pool.js';
import { seccompFilter } from './seccomp.js';

/** Options of the bubblewrap provider. */
export interface BwrapSandboxOptions {
  /** The `bwrap` executable; looked up on `PATH` by default. */
  readonly bwrapPath?: string;
  /**
   * How long the probe run may take before it counts as a failure (ms); 25 s by default: a starved machine
   * has taken over 10 s to start bwrap, and the first call waits for the probe under core's 30 s tap deadline.
   */
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
  const probeTimeoutMs = options.probeTimeoutMs ?? 25_000;
  const filters = { on: seccompFilter(process.arch, true), off: seccompFilter(process.arch, false) };
  // The kernel exempts uid 0 of the initial namespace from RLIMIT_NPROC, and bwrap maps root to root.
  const prlimit = process.getuid?.() === 0 ? undefined : (options.prlimitPath ?? onPath('prlimit'));
  const relays = new RelayPool(bwrap);
  /** socat follows the link and then the socket by their host paths: neither folder may be writable for the command. */
  const checkRelayFolders = (socketPath: string, namespace: RelayNamespace, writable: readonly string[]): void => {
    const links = relays.linkFolderOf(namespace);
    if (links === undefined) throw relayError('the relay was not prepared by this sandbox (SandboxProvider.prepareEgress)');
    try {
      assertOutsideWritable(links, writable, "relay's link folder");
    } catch (error) {
      relays.retire(links);
      throw error;
    }
    assertOutsideWritable(dirname(socketPath), writable, "network proxy's socket folder");
  };
  const wrap = (given: SandboxCommand, policy: SandboxPolicy): SandboxCommand => {
    const egress = policy.egress?.namespace;
    // Without its relay's namespace the command would run in a network of its own with nowhere to go: refuse.
    if (policy.egress !== undefined && egress === undefined)
      throw relayError('the relay was not prepared (SandboxProvider.prepareEgress) before the sandbox');
    // Private folders made from now on avoid what this command may write; those socat follows for it are checked.
    noteWritablePaths(policy.writableRoots);
    if (policy.egress !== undefined && egress !== undefined) checkRelayFolders(policy.egress.socketPath, egress, policy.writableRoots);
    // The egress relay runs outside the sandbox (see RelayPool): only the host network needs AF_UNIX.
    const filter = policy.network ? filters.on : filters.off;
    const limit = policy.maxProcesses !== undefined && prlimit !== undefined ? [prlimit, `--nproc=${policy.maxProcesses}`, '--'] : [];
    const profile = bwrapProfile(policy);
    const releaseStubs = holdStubs(profile.stubs);
    const command: SandboxCommand = {
      file: bwrap,
      args: [...profile.args, ...(filter === undefined ? [] : ['--seccomp', String(seccompFd)]), '--', ...limit, given.file, ...given.args],
      inputs: filter === undefined ? [] : [{ fd: seccompFd, data: filter }],
      release: releaseStubs,
    };
    return egress === undefined ? command : inRelayNamespace(egress, command);
  };
  return Object.freeze({
    name: 'bwrap',
    containsProcessTree: true,
    wrap,
    prepareEgress: (egress: EgressRelay) => relays.take(egress.relayPath, egress.socketPath),
    environment: (policy: SandboxPolicy) => ({ TMPDIR: '/tmp', ...(policy.egress === undefined ? {} : egressEnvironment()) }),
    // The probe runs the real profile and checks from inside that `/` is not writable.
    probe: async (policy: SandboxPolicy): Promise<SandboxProbe> => {
      // Before the layout looks at the workspace: a stub a killed host left would pass for a file.
      sweepStaleStubs(policy.writableRoots);
      if (filters.off === undefined)
        return { ok: false, reason: `no seccomp filter for the ${process.arch} architecture (x64 and arm64 have one)` };
      // The probe checks the sandbox, not the network: each call's relay reports its own failure.
      const run = ({ egress: _relay, ...p }: SandboxPolicy) =>
        probeRun(wrap({ file: '/bin/sh', args: ['-c', 'if [ -w / ]; then exit 3; fi'] }, p), probeTimeoutMs);
      const probe = await run(policy);
      if (probe.ok) return probe;
      if (probe.timedOut === true) return { ok: false, reason: probe.reason, cause: 'timeout' };
      if (probe.bwrapFailed !== true) return { ok: false, reason: probe.reason };
      // bwrap failed: if it works without the policy's paths, those are the cause, and running
      // without a sandbox because of a file in the workspace would be a silent downgrade.
      const bare = await run({ ...policy, readOnlyPaths: [], extraReadablePaths: [], denyReadPaths: [] });
      if (!bare.ok) return probe;
      return {
        ok: false,
        cause: 'paths',
        reason: `bwrap works here, but not with the paths this workspace protects (${probe.detail}); fix or remove that path`,
      };
    },
  });
}

/**
 * The bwrap arguments for a policy, in the order bwrap needs: `/` read-only
 * first, then the fresh `/dev`, `/proc` (PID 1's memory hidden) and `/tmp`,
 * then binds (shorter paths first, so a nested bind lands on top of its
 * parent), then the pins and read-only re-binds that keep protected paths
 * in place (see `protectedLayout`), then the masks over the deny-read paths
 * that exist (a mask that holds a root goes before the binds, so the root
 * stays usable). The seccomp filter is added by the provider's `wrap`, which
 * also feeds it.
 */
export function bwrapArgs(policy: SandboxPolicy): string[] {
  return bwrapProfile(policy).args;
}

/** The arguments, and the stubs bwrap will create on the host as mount points (removed after the call). */
function bwrapProfile(policy: SandboxPolicy): { args: string[]; stubs: readonly string[] } {
  const args = ['--die-with-parent', '--new-session', '--unshare-all'];
  // With the egress relay, bwrap is started in the relay's network namespace (see inRelayNamespace) and keeps it.
  if (policy.network || policy.egress?.namespace !== undefined) args.push('--share-net');
  args.push('--unshare-user', '--disable-userns', '--cap-drop', 'ALL');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');
  // PID 1 (bwrap's init) runs as the command's user without capabilities, so without this a command
  // could write code into it through /proc/1/mem and keep the namespace alive after the host dies.
  for (const mem of pidOneMemory) args.push('--ro-bind', '/dev/null', mem);
  args.push('--tmpfs', '/tmp');
  const masks = masksOf(policy.denyReadPaths ?? []);
  const layout = protectedLayout(
    policy.writableRoots,
    policy.readOnlyPaths,
    masks.map((mask) => mask.path),
  );
  const bound = [...policy.writableRoots, ...policy.extraReadablePaths, ...layout.readOnly, ...layout.pins];
  const holdsBound = (mask: Mask): boolean => bound.some((path) => path === mask.path || path.startsWith(`${mask.path}/`));
  const pushMask = (mask: Mask): void => {
    if (mask.directory) args.push('--tmpfs', mask.path, '--remount-ro', mask.path);
    else args.push('--ro-bind', '/dev/null', mask.path);
  };
  for (const mask of masks) if (holdsBound(mask)) pushMask(mask);
  for (const root of byDepth(policy.writableRoots)) args.push('--bind', root, root);
  for (const dir of layout.pins) args.push('--bind', dir, dir);
  for (const path of byDepth(policy.extraReadablePaths)) args.push('--ro-bind-try', path, path);
  for (const path of byDepth(layout.readOnly)) args.push('--ro-bind-try', path, path);
  for (const stub of layout.stubs) args.push('--ro-bind', '/dev/null', stub);
  for (const mask of masks) if (!holdsBound(mask)) pushMask(mask);
  args.push('--chdir', policy.cwd);
  return { args, stubs: layout.stubs };
}

/** PID 1's memory inside the sandbox, through both of its names. */
const pidOneMemory = ['/proc/1/mem', '/proc/1/task/1/mem'] as const;

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

/** A probe run's result; a failure of bwrap itself (not of the check inside) carries what bwrap said. */
type ProbeRun =
  | { readonly ok: true; readonly detail: string }
  | { readonly ok: false; readonly reason: string; readonly bwrapFailed?: boolean; readonly timedOut?: boolean; readonly detail?: string };

function probeRun(command: SandboxCommand, timeoutMs: number): Promise<ProbeRun> {
  return new Promise((resolve) => {
    let stderr = '';
    let settled = false;
    const finish = (probe: ProbeRun): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(probe);
    };
    const stdio = stdioOf(false, command);
    stdio[1] = 'ignore';
    const child = spawn(command.file, command.args, { stdio, detached: true });
    feedInputs(child, command);
    // The probe's mount-point stubs go once bwrap is gone (or never started).
    child.once('close', () => command.release?.());
    child.once('error', () => command.release?.());
    const timer = setTimeout(() => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      finish({ ok: false, reason: `the bwrap probe did not finish within ${timeoutMs} ms`, timedOut: true });
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
        finish({
          ok: false,
          reason: `bwrap failed (${signal ?? `exit code ${code}`})${why === '' ? '' : `: ${why}`}`,
          bwrapFailed: signal === null && why.startsWith('bwrap:'),
          detail: why,
        });
      }
    });
  });
}

import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { SandboxCommand } from '../sandbox/provider.js';
import { findExecutable } from './find-executable.js';

/**
 * The init of an unsandboxed call's PID namespace (perl, no modules: a few ms
 * to start). The command must not be PID 1 itself: PID 1 ignores every
 * signal it has no handler for (a shell's `kill $$` or the tool's SIGTERM
 * would do nothing) and its death by a signal cannot be passed on. So this
 * init forks the command, forwards SIGTERM to every process of the namespace
 * (`kill -1`: setsid escapees and cleared environments included), writes the
 * command's raw wait status on fd `statusFd` as soon as it is reaped, then
 * gives what is left SIGTERM and `graceMs` to exit and exits itself: the
 * kernel kills the rest, and the outer `unshare` returns once they are gone.
 * A second line says `escalated` when the grace ran out. SIGUSR2 (the
 * tool's kill) makes it exit at once, reporting a command it had not reaped
 * as killed by SIGKILL, which the kernel then does: a SIGKILL to the init
 * itself would make util-linux 2.38's `unshare` exit 1 with a message in the
 * command's stderr instead of dying by that signal.
 */
const initScript = `
my ($fd, $grace) = splice(@ARGV, 0, 2);
open(my $st, '>&=', $fd) or exit 125;
my $termed = 0;
my $status;
$SIG{TERM} = sub { kill('TERM', -1) unless $termed++ };
$SIG{USR2} = sub { syswrite($st, defined $status ? "escalated\\n" : "9\\nescalated\\n"); exit 137 };
my $cmd = fork;
exit 125 unless defined $cmd;
if ($cmd == 0) { $SIG{TERM} = $SIG{USR2} = 'DEFAULT'; close $st; exec { $ARGV[0] } @ARGV; exit 127 }
while (1) { my $w = wait; if ($w == -1) { $status = 0; last } if ($w == $cmd) { $status = $?; last } }
syswrite($st, "$status\\n");
sub now { open(my $u, '<', '/proc/uptime') or return 0; my $l = <$u>; return (split(' ', $l))[0] }
my $until;
my $escalated = 0;
while (1) {
  my $w = waitpid(-1, 1);
  last if $w == -1;
  next if $w > 0;
  if (!defined $until) { kill('TERM', -1) unless $termed++; $until = now() + $grace / 1000 }
  if (now() >= $until) { $escalated = 1; last }
  select(undef, undef, undef, 0.01);
}
syswrite($st, $escalated ? "escalated\\n" : "done\\n");
exit(($status & 127) ? 128 + ($status & 127) : $status >> 8);
`;

/** Where an unsandboxed call can get a PID namespace of its own, found once per `unshare` found. */
export type PidNamespaceSupport = ({ readonly ok: true } & NamespaceTools) | { readonly ok: false; readonly reason: string };

/** The programs that make an unsandboxed call's PID namespace. */
export interface NamespaceTools {
  readonly unshare: string;
  readonly perl: string;
  /**
   * util-linux `setpriv`, when on `PATH`: `unshare` then dies with the thread
   * that started it (`--pdeathsig KILL`), so a host killed outright takes its
   * calls' namespaces with it. Without it they run until their command ends.
   */
  readonly setpriv?: string;
}

/** The warning code of the one-time diagnostic when a root host cannot give calls a PID namespace. */
export const noPidNamespaceWarning = 'DSH_BASH_NO_PID_NAMESPACE';

const probes = new Map<string, Promise<PidNamespaceSupport>>();
const warned = new Set<string>();

/**
 * Whether unsandboxed calls can run in a PID namespace here: as root only
 * (without root it would take a user namespace, where setuid programs such as
 * `sudo` stop working and the command's groups change), with util-linux
 * `unshare` and `perl` on this process's `PATH`, and a real run proving it.
 * As root, a failure is reported once (`process.emitWarning`, code
 * {@link noPidNamespaceWarning}): calls then rely on the marker sweep.
 */
export function pidNamespaceSupport(): Promise<PidNamespaceSupport> {
  if (process.getuid?.() !== 0) return Promise.resolve({ ok: false, reason: 'not root' });
  const unshare = findExecutable('unshare');
  const perl = findExecutable('perl');
  const setpriv = findExecutable('setpriv');
  const key = `${unshare}\0${perl}\0${setpriv}`;
  let probe = probes.get(key);
  if (probe === undefined) {
    probe = probeNamespace(unshare, perl, setpriv).then((support) => {
      if (!support.ok && !warned.has(support.reason)) {
        warned.add(support.reason);
        process.emitWarning(
          `tool-bash: unsandboxed calls run without a PID namespace (${support.reason}); ` +
            'processes that leave the call are found only by the marker sweep, and one that clears its environment can outlive the call',
          { code: noPidNamespaceWarning },
        );
      }
      return support;
    });
    probes.set(key, probe);
  }
  return probe;
}

function probeNamespace(unshare: string | undefined, perl: string | undefined, setpriv: string | undefined): Promise<PidNamespaceSupport> {
  if (unshare === undefined) return Promise.resolve({ ok: false, reason: 'no unshare (util-linux) on PATH' });
  if (perl === undefined) return Promise.resolve({ ok: false, reason: 'no perl on PATH' });
  const tools: NamespaceTools = setpriv === undefined ? { unshare, perl } : { unshare, perl, setpriv };
  return new Promise((resolve) => {
    const command = inPidNamespace({ file: '/bin/sh', args: ['-c', 'exit 7'] }, tools, 3, 0);
    const child = spawn(command.file, [...command.args], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let status = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdio[3]?.on('data', (chunk: Buffer) => {
      status += chunk.toString();
    });
    child.once('error', (error) => resolve({ ok: false, reason: `${unshare} could not be started: ${error.message}` }));
    child.once('close', (code) =>
      resolve(
        code === 7 && commandStatus(status)?.code === 7
          ? { ok: true, ...tools }
          : { ok: false, reason: `${unshare} --pid failed (exit ${code}): ${stderr.trim().slice(0, 200) || 'no message'}` },
      ),
    );
  });
}

/**
 * `command` run as the child of {@link initScript} in a new PID namespace
 * with its own `/proc` (so `$!` and `/proc/$!` name the same process), which
 * dies with `unshare` (`--kill-child`), which dies with its starter (`setpriv
 * --pdeathsig`, when there is one). The command's wait status comes on
 * `statusFd`, which the command itself does not inherit.
 */
export function inPidNamespace(command: SandboxCommand, tools: NamespaceTools, statusFd: number, graceMs: number): SandboxCommand {
  const diesWithStarter = tools.setpriv === undefined ? [] : ['--pdeathsig', 'KILL', '--', tools.unshare];
  return {
    ...command,
    file: tools.setpriv ?? tools.unshare,
    args: [
      ...diesWithStarter,
      '--pid',
      '--fork',
      '--kill-child',
      '--mount-proc',
      '--',
      tools.perl,
      '-e',
      initScript,
      String(statusFd),
      String(graceMs),
      command.file,
      ...command.args,
    ],
  };
}

/** What the init wrote: the command's exit, and whether its leftovers needed the kernel's kill. */
export interface CommandStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly escalated: boolean;
}

/** Parses the init's report; undefined when the command was never reaped (the init was killed first). */
export function commandStatus(report: string): CommandStatus | undefined {
  const [raw, after] = report.split('\n');
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  const status = Number(raw);
  const signal = status & 127;
  return signal === 0
    ? { code: status >> 8, signal: null, escalated: after === 'escalated' }
    : { code: null, signal: signalName(signal), escalated: after === 'escalated' };
}

function signalName(signal: number): NodeJS.Signals | null {
  const entry = Object.entries(constants.signals).find(([, n]) => n === signal);
  return (entry?.[0] as NodeJS.Signals | undefined) ?? null;
}

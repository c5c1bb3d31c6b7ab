import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bashHosts, errorOf, okOutput, stoppedOnceStarted, trackProcesses, workspace } from './fixtures/support.js';
import { pidNamespaceSupport } from './internal/pid-namespace.js';
import { killProcessesMatching, processesMatching, waitForNoProcesses } from './processes.js';

const ws = workspace();
const { env, mark, marked } = trackProcesses();

// Without cgroups: these tests pin down the process-group kill and the marker sweep (daemons.test.ts has both),
// or, where the host gives the call a PID namespace of its own (root with unshare), what that changes.
const namespace = (await pidNamespaceSupport()).ok;
const host = bashHosts({ cwd: ws, killGraceMs: 300, cgroups: false, sandbox: { provider: 'none' } }, env);
/** A grace long enough that only a process ignoring SIGTERM is escalated, however loaded the machine. */
const patientHost = bashHosts({ cwd: ws, killGraceMs: 30_000, cgroups: false, sandbox: { provider: 'none' } }, env);

/** Core's abort grace for tests that check the tool's own answer to an abort: only a hang ends in core's answer instead. */
const unhurriedGraceMs = 60_000;

/** Waits until the last background process has left the shell's session (its session id is its own pid). */
const untilEscaped = 'p=$!; until [ "$(cut -d\' \' -f6 /proc/$p/stat)" = "$p" ]; do sleep 0.01; done';
/** Starts `setsid sleep 300` in the background and waits until it has left the shell's session. */
const escapeSession = `setsid sleep 300 > /dev/null 2>&1 < /dev/null & ${untilEscaped}`;

/** Resolves once a process with `mark` and `needle` in its command line exists. */
async function started(mark: string, needle: string): Promise<void> {
  while (!processesMatching(mark).some((p) => p.command === needle)) await new Promise((r) => setTimeout(r, 10));
}

describe('stopping a command and everything it started', () => {
  it('kills children and grandchildren on timeout, and returns the output so far', async () => {
    const t = await patientHost();
    const m = mark();
    const command = marked(m, 'echo started; sleep 300 & (sleep 301 & wait) & wait');
    const { error, timeoutMs } = await stoppedOnceStarted(
      (timeout) => t.call('bash', { command, timeout }),
      (e) => e.data?.stdout === 'started\n',
    );
    expect(error.code).toBe('TOOL_TIMEOUT');
    expect(error.message).toMatch(new RegExp(`did not finish within ${timeoutMs} ms`));
    expect(error.data).toMatchObject({ stoppedBy: 'timeout', timeoutMs, escalated: false, stdout: 'started\n', signal: 'SIGTERM' });
    expect(await waitForNoProcesses(m)).toEqual([]);
  });

  it('escalates to SIGKILL when the command ignores SIGTERM', async () => {
    const t = await host();
    const m = mark();
    // Stopped once both traps are set: a deadline before that would find a command that does not ignore SIGTERM yet.
    const { error } = await stoppedOnceStarted(
      (timeout) => t.call('bash', { command: marked(m, `trap '' TERM; bash -c "trap '' TERM; echo started; sleep 300" & wait`), timeout }),
      (e) => e.data?.stdout === 'started\n',
    );
    expect(error.code).toBe('TOOL_TIMEOUT');
    expect(error.data).toMatchObject({ escalated: true, signal: 'SIGKILL' });
    expect(error.message).toMatch(/SIGKILL after SIGTERM was ignored/);
  });

  it('settles when the shell exits while a background process still holds the output pipes, and kills it', async () => {
    const t = await host();
    const m = mark();
    const out = okOutput(await t.call('bash', { command: marked(m, 'sleep 300 & echo left-behind') }));
    expect(out).toMatchObject({ exitCode: 0, stdout: 'left-behind\n' });
  });

  it('stops the command when the step is aborted, with code ABORTED', async () => {
    // The tool's own answer is under test: core's abort grace (2 s by default) must not decide it on a loaded machine.
    const t = await host({}, { abortGraceMs: unhurriedGraceMs });
    const m = mark();
    const controller = new AbortController();
    const step = t.host.runStep(
      { calls: [{ id: 'abort-me', name: 'bash', args: { command: marked(m, 'sleep 300 & sleep 299') } }] },
      { signal: controller.signal },
    );
    await started(m, 'sleep 299');
    controller.abort(new Error('the user pressed stop'));
    const { results } = await step;
    const error = errorOf(results[0]?.outcome as never);
    expect(error.code).toBe('ABORTED');
    expect(error.message).toMatch(/cancelled: the user pressed stop/);
    expect(error.data).toMatchObject({ stoppedBy: 'abort' });
  });

  it('keeps the code of a coded abort reason: the host dispatch deadline reads TOOL_TIMEOUT', async () => {
    const t = await host({}, { dispatchTimeoutMs: 300, abortGraceMs: unhurriedGraceMs });
    const m = mark();
    const error = errorOf(await t.call('bash', { command: marked(m, 'sleep 300') }));
    expect(error.code).toBe('TOOL_TIMEOUT');
    expect(error.message).toMatch(/dispatch deadline/);
    expect(error.data).toMatchObject({ stoppedBy: 'abort' });
  });

  it('kills a setsid escapee on timeout through the call marker in its environment', async () => {
    const t = await host();
    const m = mark();
    const error = errorOf(await t.call('bash', { command: marked(m, `${escapeSession}; sleep 299`), timeout: 300 }));
    expect(error.code).toBe('TOOL_TIMEOUT');
  });

  it('kills a setsid escapee after a normal exit too', async () => {
    const t = await host();
    const m = mark();
    okOutput(await t.call('bash', { command: marked(m, `${escapeSession}; echo done`) }));
  });

  it(`${namespace ? 'kills a setsid escapee with the sweep off too (PID namespace)' : 'leaves a setsid escapee running when the sweep is off'}, as the README says`, async () => {
    const t = await host({ sweepEscapees: false });
    const m = `dshescape${Date.now()}`; // not tracked: without a namespace this test expects a survivor and cleans it up itself
    try {
      okOutput(await t.call('bash', { command: marked(m, `${escapeSession}; echo done`) }));
      expect(processesMatching(m).map((p) => p.command)).toEqual(namespace ? [] : ['sleep 300']);
    } finally {
      killProcessesMatching(m);
      expect(await waitForNoProcesses(m)).toEqual([]);
    }
  });

  it(`settles even when an escapee that cleared its environment keeps the pipes open (${namespace ? 'killed with its PID namespace' : 'it survives: see README'})`, async () => {
    const t = await host();
    const survivor = `dshcleared${Date.now()}`; // found by its command line; the sweep cannot see it
    try {
      const out = okOutput(
        await t.call('bash', { command: `env -i setsid bash -c 'exec -a ${survivor} sleep 300' & ${untilEscaped}; echo settled` }),
      );
      expect(out.stdout).toBe('settled\n');
      expect(processesMatching(survivor).map((p) => p.command)).toEqual(namespace ? [] : [`${survivor} 300`]);
    } finally {
      killProcessesMatching(survivor);
      expect(await waitForNoProcesses(survivor)).toEqual([]);
    }
  });

  it('contains a fork loop with the timeout', async () => {
    const t = await host();
    const m = mark();
    const error = errorOf(await t.call('bash', { command: marked(m, 'while true; do sleep 300 & done'), timeout: 500 }));
    expect(error.code).toBe('TOOL_TIMEOUT');
  });

  it('kills a process that ignores SIGTERM and keeps the pipes open after the shell exits', async () => {
    const t = await host();
    const m = mark();
    const out = okOutput(await t.call('bash', { command: marked(m, `bash -c "trap '' TERM; sleep 300" & echo gone`) }));
    expect(out.stdout).toBe('gone\n');
  });
});

describe('processesMatching', () => {
  it('finds processes by command line and by inherited environment, and not after they end', async () => {
    const m = mark();
    const child = spawn('bash', ['-c', `export DSH_TEST_MARK=${m}; sleep 300 & sleep 299 & wait`], { stdio: 'ignore' });
    // Both sleeps exec'd (the bash command line also contains "sleep 299", so wait for exact commands).
    const both = () => ['sleep 299', 'sleep 300'].every((c) => processesMatching(m).some((p) => p.command === c));
    while (!both()) await new Promise((r) => setTimeout(r, 10));
    const found = processesMatching(m);
    expect(found.map((p) => p.command).sort()).toEqual([
      `bash -c export DSH_TEST_MARK=${m}; sleep 300 & sleep 299 & wait`,
      'sleep 299',
      'sleep 300',
    ]);
    expect(processesMatching(m, { environment: false })).toHaveLength(1);
    expect(processesMatching(m, { commandLine: false })).toHaveLength(2);
    expect(found.every((p) => p.pgid > 0 && p.ppid > 0 && p.state !== 'Z')).toBe(true);
    const exited = new Promise((r) => child.once('exit', r));
    expect(killProcessesMatching(m)).toHaveLength(3);
    await exited;
    expect(await waitForNoProcesses(m)).toEqual([]);
  });

  it('refuses an empty marker, which would match everything', () => {
    expect(() => processesMatching('')).toThrow(/non-empty marker/);
  });
});

// Issue 35 item 5 without the sandbox and without a cgroup: the call runs in a PID namespace of its own
// (as root, with util-linux unshare), so its result comes only after every process it started is gone,
// setsid escapees and ones that cleared their environment included. Bounded: 200 sleepers, no fork bomb.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bashHosts, errorOf, okOutput, stoppedOnceStarted, trackProcesses, workspace } from './fixtures/support.js';
import { pidNamespaceSupport } from './internal/pid-namespace.js';
import { killProcessesMatching, processesMatching } from './processes.js';

const support = await pidNamespaceSupport();
const ws = workspace();
const { env, mark, marked } = trackProcesses();
const host = bashHosts({ cwd: ws, killGraceMs: 300, cgroups: false, sandbox: { provider: 'none' } }, env);
/** Core's abort grace, long enough that the tool's own answer to an abort is the one under test. */
const unhurriedGraceMs = 60_000;
const why = support.ok ? '' : ` (skipped: ${support.reason})`;

/** 200 `setsid sleep 300` started in a loop, plus one that clears its environment (named `cleared`), then waits until all run. */
function escapees(cleared: string): string {
  return [
    'for i in $(seq 200); do setsid sleep 300 >/dev/null 2>&1 </dev/null & done',
    `env -i setsid bash -c 'exec -a ${cleared} sleep 300' >/dev/null 2>&1 </dev/null &`,
    // Inside the namespace /proc lists the call's processes only: 201 sleepers plus this shell's own.
    `until [ "$(grep -lsa '^sleep\\|^${cleared}' /proc/[0-9]*/cmdline | wc -l)" -ge 201 ]; do sleep 0.01; done`,
    'echo started',
  ].join('\n');
}

/** The call's processes alive right now: by the marker in their environment, and the cleared one by its command line. */
function alive(m: string, cleared: string): string[] {
  return [...processesMatching(m), ...processesMatching(cleared)].map((p) => `${p.pid} ${p.command}`);
}

/** A host in a process of its own, so that a test can kill it outright. */
let hostProcess: ChildProcess | undefined;
afterEach(() => {
  hostProcess?.kill('SIGKILL');
  hostProcess = undefined;
});

describe.skipIf(!support.ok)(`without the sandbox and without a cgroup, in a PID namespace${why}`, () => {
  it('settles after a normal exit only once 200 setsid escapees and one with a cleared environment are gone', async () => {
    const t = await host();
    const m = mark();
    const cleared = `${m}cleared`;
    try {
      const out = okOutput(await t.call('bash', { command: marked(m, escapees(cleared)) }));
      expect(out).toMatchObject({ exitCode: 0, stdout: 'started\n' });
      // Read at the result, not polled: nothing of the call may outlive it.
      expect(alive(m, cleared)).toEqual([]);
    } finally {
      killProcessesMatching(cleared);
    }
  });

  it('settles when stopped only once the same escapees are gone', async () => {
    // Stopped by an abort once all run (a deadline could come first while 200 processes start on a loaded machine).
    // A grace long enough that 200 sleepers dying of SIGTERM on a loaded machine are never escalated.
    const t = await host({ killGraceMs: 30_000 }, { abortGraceMs: unhurriedGraceMs });
    const m = mark();
    const cleared = `${m}cleared`;
    try {
      const controller = new AbortController();
      const step = t.host.runStep(
        { calls: [{ id: 'escapees', name: 'bash', args: { command: marked(m, `${escapees(cleared)}\nexec -a ${m}last sleep 300`) } }] },
        { signal: controller.signal },
      );
      // The last process, by its exact command line (the shell's own command line names it too).
      while (!processesMatching(`${m}last`, { environment: false }).some((p) => p.command === `${m}last 300`))
        await new Promise((r) => setTimeout(r, 20));
      controller.abort(new Error('stop'));
      const { results } = await step;
      const atResult = alive(m, cleared);
      const error = errorOf(results[0]?.outcome as never);
      expect(error.code).toBe('ABORTED');
      expect(error.data).toMatchObject({ stoppedBy: 'abort', escalated: false, signal: 'SIGTERM' });
      expect(atResult).toEqual([]);
    } finally {
      killProcessesMatching(cleared);
    }
  });

  it('kills an escapee that ignores SIGTERM and cleared its environment after the grace, before the result', async () => {
    const t = await host();
    const m = mark();
    const cleared = `${m}cleared`;
    try {
      const command = `env -i setsid bash -c "trap '' TERM; exec -a ${cleared} sleep 300" >/dev/null 2>&1 </dev/null &\necho done`;
      const out = okOutput(await t.call('bash', { command: marked(m, command) }));
      expect(out).toMatchObject({ exitCode: 0, stdout: 'done\n' });
      expect(alive(m, cleared)).toEqual([]);
    } finally {
      killProcessesMatching(cleared);
    }
  });

  it('keeps exit codes, the signal that ended the shell, and $$ and /proc naming the same process', async () => {
    const t = await host();
    expect(okOutput(await t.call('bash', { command: 'exit 3' })).exitCode).toBe(3);
    expect(okOutput(await t.call('bash', { command: 'kill -TERM $$' }))).toMatchObject({ exitCode: null, signal: 'SIGTERM' });
    expect(okOutput(await t.call('bash', { command: 'kill -KILL $$' }))).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    // The parent that /proc/$! names is this shell: both sides count pids in the call's namespace.
    const out = okOutput(await t.call('bash', { command: `sleep 30 & p=$!; echo "$$ $(cut -d' ' -f4 /proc/$p/stat)"; kill $p` }));
    const [shell, parent] = out.stdout.trim().split(' ');
    expect(parent).toBe(shell);
  });

  it('reports a command stopped while it ignores SIGTERM as killed by SIGKILL', async () => {
    const t = await host();
    const m = mark();
    // Stopped once the trap is set (a deadline before it would find a command that does not ignore SIGTERM yet).
    const { error } = await stoppedOnceStarted(
      (timeout) => t.call('bash', { command: marked(m, `trap '' TERM; echo started; sleep 300 & wait`), timeout }),
      (e) => e.data?.stdout === 'started\n',
    );
    expect(error.code).toBe('TOOL_TIMEOUT');
    expect(error.data).toMatchObject({ escalated: true, exitCode: null, signal: 'SIGKILL', stderr: '' });
    expect(processesMatching(m)).toEqual([]);
  });

  // A host killed outright runs no exit hook and cannot signal anything: the namespace must die with it.
  // The first call of a host starts unshare for itself; a later one takes a namespace made ahead.
  it.each([
    ['the first call of a host', 0],
    ['a later call, in a namespace made ahead', 1],
  ])('dies with a host killed outright: %s', async (_label, callsBefore) => {
    const m = mark();
    const cleared = `${m}cleared`;
    const started = join(ws, `${m}-started`);
    const command = marked(m, `${escapees(cleared)}\ntouch ${started}; sleep 600`);
    const script = `
      import { createHost } from '@deepseek-ai/dsh-core';
      import { toolBash } from '${new URL('../dist/index.js', import.meta.url).pathname}';
      const host = createHost({ defaultDecision: 'allow' });
      await host.use(toolBash({ cwd: ${JSON.stringify(ws)}, cgroups: false, sandbox: { provider: 'none' }, env: { set: ${JSON.stringify(env)} } }));
      for (let i = 0; i < ${callsBefore}; i++) await host.runStep({ calls: [{ id: 'warm' + i, name: 'bash', args: { command: 'true' } }] });
      // Time for the namespace of the next call to be made ahead.
      if (${callsBefore} > 0) await new Promise((resolve) => setTimeout(resolve, 500));
      await host.runStep({ calls: [{ id: 'long', name: 'bash', args: { command: ${JSON.stringify(command)}, timeout: 600000 } }] });
    `;
    try {
      hostProcess = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: import.meta.dirname, stdio: 'ignore' });
      const exited = new Promise((resolve) => hostProcess?.once('exit', resolve));
      // The test timeout is the only bound.
      while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(alive(m, cleared).length).toBeGreaterThan(200);
      hostProcess.kill('SIGKILL');
      await exited;
      // The kernel kills a namespace whose init died; the test timeout bounds the wait, not a clock of its own.
      while (alive(m, cleared).length > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      killProcessesMatching(cleared);
    }
  });
});

// Issue 35 item 6: PID 1 inside the sandbox (bwrap's init) runs as the command's user without
// capabilities, so a command could write code into it through /proc/1/mem: clear its parent-death
// signal and pause forever. Its processes then outlived a SIGKILLed host, and with the host alive the
// call ended TOOL_TIMEOUT instead of with its exit. The attack is real (x86-64 machine code).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { shellQuote } from './internal/shell.js';
import { processesMatching, waitForNoProcesses } from './processes.js';

const status = await bwrapStatus();
const { env, mark } = trackProcesses();
// Outside /tmp, which the sandbox replaces: the attack script must be visible inside.
const ws = workspace('dsh-bash-pid-one-', '/var/tmp');
const node = shellQuote(process.execPath);

/**
 * Reads where PID 1 is blocked (the return address of its wait), and writes there:
 * prctl(PR_SET_PDEATHSIG, 0), then pause() in a loop. Prints `patched` or why it could not.
 */
const attack = join(ws, 'attack.cjs');
writeFileSync(
  attack,
  `const fs = require('fs');
try {
  const fields = fs.readFileSync('/proc/1/syscall', 'utf8').trim().split(' ');
  const pc = Number(BigInt(fields[fields.length - 1]));
  const code = Buffer.from('b89d000000bf0100000031f60f05b8220000000f05ebf7', 'hex');
  const fd = fs.openSync('/proc/1/mem', 'r+');
  fs.writeSync(fd, code, 0, code.length, pc);
  console.log('patched');
} catch (e) {
  console.log('refused ' + e.code);
}
`,
);

describe.runIf(status.ok && process.arch === 'x64')('PID 1 of the sandbox against a command (real bubblewrap)', () => {
  const host = bashHosts({ cwd: ws, sandbox: { provider: 'bwrap' } }, env);

  it('refuses to let a command write into PID 1, so the call ends with the command', async () => {
    const t = await host();
    const out = okOutput(await t.call('bash', { command: `${node} ${shellQuote(attack)}; exit 7`, timeout: 60_000 }));
    expect(out.stdout).toMatch(/^refused E\w+\n$/);
    expect(out.exitCode).toBe(7);
  });

  describe('when the host is killed', () => {
    let child: ChildProcess | undefined;
    afterEach(() => {
      child?.kill('SIGKILL');
    });

    it('takes every process of the call down with it, after the command tried to patch PID 1', async () => {
      const m = mark();
      const done = join(ws, `attacked-${m}`);
      // The command patches PID 1, starts a daemon named after the mark, signals, and exits: PID 1
      // would now run the planted code instead of ending the namespace.
      const command = [
        `${node} ${shellQuote(attack)}`,
        `setsid bash -c 'exec -a ${m} sleep 300' </dev/null >/dev/null 2>&1 &`,
        `until grep -qsa '^${m}' /proc/[0-9]*/cmdline; do sleep 0.01; done`,
        `touch ${shellQuote(done)}`,
      ].join('\n');
      const script = `
        import { createHost } from '@deepseek-ai/dsh-core';
        import { toolBash } from '${new URL('../dist/index.js', import.meta.url).pathname}';
        const host = createHost({ defaultDecision: 'allow' });
        await host.use(toolBash({ cwd: ${JSON.stringify(ws)}, env: { set: ${JSON.stringify(env)} } }));
        await host.runStep({ calls: [{ id: 'c1', name: 'bash', args: { command: ${JSON.stringify(command)}, timeout: 600000 } }] });
        // Whatever the call did, stay alive until the test kills this host.
        setInterval(() => undefined, 1000);
      `;
      child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: import.meta.dirname, stdio: 'ignore' });
      const deadline = Date.now() + 60_000;
      while (!existsSync(done) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(existsSync(done)).toBe(true);
      child.kill('SIGKILL');
      // The bound only ends a hang: the namespace dies with the host, the daemon inside with it.
      expect(await waitForNoProcesses(m, { timeoutMs: 30_000 })).toEqual([]);
      expect(processesMatching(env.DSH_TEST_FILE_MARK as string)).toEqual([]);
    });
  });
});

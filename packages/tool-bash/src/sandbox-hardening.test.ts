// The bwrap sandbox against an attacker: host unix sockets, secrets, fork bombs, planted git hooks.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashHosts, bwrapStatus, errorOf, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { CgroupFactory } from './internal/cgroups.js';
import { shellQuote } from './internal/shell.js';
import { defaultDenyRead } from './sandbox/masks.js';

const status = await bwrapStatus();
const { env, mark, marked } = trackProcesses();
const node = shellQuote(process.execPath);
// Made at the top of the file, so that their clean-up runs even when a describe is skipped or filtered out.
const socketWs = workspace();
const secretsWs = workspace();
// Outside /tmp, which the sandbox replaces anyway: a mask must be what hides the secrets.
const home = workspace('dsh-bash-home-', '/var/tmp');
const limitsWs = workspace();
const gitBase = workspace();

describe.skipIf(!status.ok)('the bwrap sandbox against an attacker (real bubblewrap)', () => {
  describe('host unix sockets (seccomp)', () => {
    const ws = socketWs;
    const socketPath = join(ws, 'host.sock');
    let server: Server;
    beforeAll(async () => {
      server = createServer((socket) => socket.end('hello over unix\n'));
      await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const host = bashHosts({ cwd: ws, sandbox: { provider: 'bwrap' } }, env);
    // Node inside the sandbox connects to the socket the test serves on the host, in the (bound) workspace.
    const connect = `${node} -e "require('net').connect(process.argv[1]).on('data', (d) => process.stdout.write(d)).on('error', (e) => console.log(e.code))" ${socketPath}`;

    it('refuses connect() to a host unix socket without network', async () => {
      const out = okOutput(await (await host()).call('bash', { command: connect }));
      expect(out.stdout).toBe('EPERM\n');
    });

    it('lets it through when the network is allowed', async () => {
      const out = okOutput(await (await host({ sandbox: { network: true } })).call('bash', { command: connect }));
      expect(out.stdout).toBe('hello over unix\n');
    });

    it('keeps socketpair and loopback sockets inside the sandbox working', async () => {
      const script = [
        "const net = require('net');",
        "const s = net.createServer((c) => c.end('pong')).listen(0, '127.0.0.1', () => {",
        "  net.connect(s.address().port, '127.0.0.1').on('data', (d) => { console.log(String(d)); s.close(); });",
        '});',
      ].join(' ');
      const out = okOutput(
        await (await host()).call('bash', { command: `${node} -e "${script}"; echo x | cat | cat; python3 -c 1 2>/dev/null; echo done` }),
      );
      expect(out.stdout).toBe('pong\nx\ndone\n');
    });

    it.runIf(process.arch === 'x64' || process.arch === 'arm64')(
      'denies ptrace, keyctl, bpf, mount, unshare, setns, perf_event_open and userfaultfd with EPERM',
      async () => {
        const numbers =
          process.arch === 'x64'
            ? { ptrace: 101, keyctl: 250, bpf: 321, mount: 165, unshare: 272, setns: 308, perf_event_open: 298, userfaultfd: 323 }
            : { ptrace: 117, keyctl: 219, bpf: 280, mount: 40, unshare: 97, setns: 268, perf_event_open: 241, userfaultfd: 282 };
        // perl's syscall() calls any number directly; skip quietly where perl is missing.
        const calls = Object.entries(numbers)
          .map(([name, nr]) => `perl -e '$r = syscall(${nr}, 0, 0, 0, 0, 0); print "${name}=", ($r == -1 ? $!+0 : "ok"), "\\n"'`)
          .join('; ');
        const out = okOutput(await (await host()).call('bash', { command: `command -v perl >/dev/null || exit 0; ${calls}` }));
        if (out.stdout === '') return;
        for (const name of Object.keys(numbers)) expect(out.stdout).toContain(`${name}=1\n`);
      },
    );
  });

  describe('secrets (deny-read masks)', () => {
    const ws = secretsWs;
    const secretFiles = defaultDenyRead
      .filter((p) => p.startsWith('~/'))
      .map((p) => join(home, p.slice(2)))
      .map((p) => (/\.(json|toml|yml)$|credentials$|rc$|token$/.test(p) ? p : join(p, 'secret')));
    beforeAll(() => {
      for (const file of secretFiles) {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, 'TOP-SECRET\n');
      }
    });
    const host = bashHosts({ cwd: ws, sandbox: { provider: 'bwrap', home } }, env);

    it('hides every default secret under the home directory, and /etc/shadow', async () => {
      const reads = [...secretFiles, '/etc/shadow'].map((f) => `cat ${shellQuote(f)} 2>/dev/null`).join('; ');
      const out = okOutput(await (await host()).call('bash', { command: `${reads}; echo end` }));
      expect(out.stdout).toBe('end\n');
      expect(secretFiles.every((f) => readFileSync(f, 'utf8') === 'TOP-SECRET\n')).toBe(true);
    });

    it('keeps the masks read-only and lists nothing in a masked directory', async () => {
      const ssh = join(home, '.ssh');
      const out = okOutput(
        await (await host()).call('bash', {
          command: `ls -A ${ssh}; touch ${ssh}/x; echo "touch=$?"; echo y > ${home}/.netrc; echo "write=$?"`,
        }),
      );
      expect(out.stdout).toMatch(/^touch=[1-9]\d*\nwrite=[1-9]\d*\n$/);
      expect(existsSync(join(ssh, 'x'))).toBe(false);
    });

    it('hides a secret inside a writable root, and a secret created after the plugin started', async () => {
      const t = await bashHosts({ cwd: home, sandbox: { provider: 'bwrap', home } }, env)();
      writeFileSync(join(home, '.git-credentials'), 'TOP-SECRET\n');
      const out = okOutput(await t.call('bash', { command: 'cat .git-credentials .aws/secret 2>/dev/null; touch ok && echo writable' }));
      expect(out.stdout).toBe('writable\n');
    });

    it('reads a path again once the list no longer names it (the list is configurable)', async () => {
      const t = await host({ sandbox: { denyRead: ['~/.aws'] } });
      const out = okOutput(await t.call('bash', { command: `cat ${home}/.ssh/secret; cat ${home}/.aws/secret 2>/dev/null; echo end` }));
      expect(out.stdout).toBe('TOP-SECRET\nend\n');
    });
  });

  describe('a fork bomb (process limit)', () => {
    const ws = limitsWs;
    const host = bashHosts({ cwd: ws, killGraceMs: 500, sandbox: { provider: 'bwrap' }, limits: { processes: 64 } }, env);
    // Root is exempt from RLIMIT_NPROC; there the limit needs a cgroup (pids.max).
    const enforced = process.getuid?.() !== 0 || CgroupFactory.detect()?.canLimit('processes') === true;

    it.skipIf(!enforced)('hits the limit, settles on the timeout and leaves no process', async () => {
      const m = mark();
      const error = errorOf(
        await (await host()).call('bash', { command: marked(m, 'bomb() { bomb | bomb & }; bomb; exec sleep 300'), timeout: 5_000 }),
      );
      expect(error.code).toBe('TOOL_TIMEOUT');
      expect(error.data?.stderr).toMatch(/Resource temporarily unavailable/);
      // trackProcesses checks after the test that no process with the marker is left.
    });

    it.skipIf(!enforced)('reports the limit it set through a cgroup', async () => {
      const out = okOutput(await (await host()).call('bash', { command: 'true' }));
      if (process.getuid?.() === 0) expect(out.limits?.processes).toBe(64);
    });
  });

  describe('memory (cgroup only)', () => {
    const ws = limitsWs;
    const host = bashHosts({ cwd: ws, sandbox: { provider: 'bwrap' }, limits: { memoryBytes: 64 * 1024 * 1024 } }, env);
    const settable = CgroupFactory.detect()?.canLimit('memoryBytes') === true;

    it.skipIf(!settable)('kills a command that goes past the memory limit', async () => {
      const fill = `${node} -e "const b = []; for (let i = 0; i < 64; i++) b.push(Buffer.alloc(8 * 1024 * 1024, 1)); console.log('allocated')"`;
      const out = okOutput(await (await host()).call('bash', { command: `${fill}; echo "rc=$?"` }));
      expect(out.limits?.memoryBytes).toBe(64 * 1024 * 1024);
      expect(out.stdout).not.toMatch(/allocated/);
      expect(out.stdout).toMatch(/rc=(137|134|1)\n$/);
    });
  });

  describe('planting git metadata in a workspace without .git', () => {
    const workspace = (): string => mkdtempSync(join(gitBase, 'ws-'));
    const host = (ws: string, gitWritable = false) => bashHosts({ cwd: ws, sandbox: { provider: 'bwrap', gitWritable } }, env)();
    const hook =
      'mkdir -p .git/hooks && printf "#!/bin/sh\\necho pwned\\n" > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout';
    const config = 'mkdir -p .git && printf "[core]\\n\\tfsmonitor = touch /tmp/pwned\\n" > .git/config';

    for (const [what, command] of [
      ['an executable hook', hook],
      ['a config with core.fsmonitor', config],
      ['a .git file pointing elsewhere', 'mkdir -p x && echo "gitdir: x" > .git'],
    ] as const) {
      it(`fails the call with GIT_DIR_PLANTED and moves ${what} out of git's reach`, async () => {
        const ws = workspace();
        const error = errorOf(await (await host(ws)).call('bash', { command: `${command} && echo planted` }));
        expect(error.code).toBe('GIT_DIR_PLANTED');
        expect(error.data?.stdout).toBe('planted\n');
        expect(existsSync(join(ws, '.git'))).toBe(false);
        const moved = (error.data as unknown as { planted: { movedTo: string }[] }).planted[0]?.movedTo ?? '';
        expect(moved).toMatch(/\/\.git\.dsh-blocked-/);
        expect(existsSync(moved)).toBe(true);
      });
    }

    it('allows it with gitWritable', async () => {
      const ws = workspace();
      okOutput(await (await host(ws, true)).call('bash', { command: hook }));
      expect(statSync(join(ws, '.git/hooks/post-checkout')).mode & 0o111).not.toBe(0);
    });

    it('keeps an existing .husky read-only', async () => {
      const ws = workspace();
      mkdirSync(join(ws, '.husky'));
      writeFileSync(join(ws, '.husky', 'pre-commit'), '#!/bin/sh\n');
      chmodSync(join(ws, '.husky', 'pre-commit'), 0o755);
      const out = okOutput(await (await host(ws)).call('bash', { command: 'echo "echo pwned" >> .husky/pre-commit; echo "rc=$?"' }));
      expect(out.stdout).toMatch(/^rc=[1-9]/);
      expect(readFileSync(join(ws, '.husky', 'pre-commit'), 'utf8')).toBe('#!/bin/sh\n');
    });
  });
});

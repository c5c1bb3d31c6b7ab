import { defineTool, z } from '@deepseek-ai/dsh-core';
import { createTestHost, scriptedApproval } from '@deepseek-ai/dsh-core/testing';
import { describe, expect, it } from 'vitest';
import { errorOf, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { toolBash } from './plugin.js';
import type { SandboxProvider } from './sandbox/provider.js';
import { SandboxSelector } from './sandbox-selection.js';

const ws = workspace();
const { env, mark, marked } = trackProcesses();
const missingBwrap = { provider: 'bwrap', bwrapPath: '/nonexistent/bwrap' } as const;

const sandboxEvents = (events: readonly { type: string; data: unknown }[]) =>
  events.filter((e) => e.type === 'bash/sandbox').map((e) => e.data);

describe('choosing the sandbox of each call', () => {
  it('denies every call by default when bwrap does not work, saying why, and runs nothing', async () => {
    const t = await createTestHost({ plugins: [toolBash({ cwd: ws, env: { set: env }, sandbox: missingBwrap })] });
    const outcome = await t.call('bash', { command: 'touch should-not-exist' });
    expect(outcome).toMatchObject({ status: 'denied', code: 'PRE_EXECUTE_DENIED', by: 'tool-bash/sandbox' });
    expect((outcome as { reason: string }).reason).toMatch(/bwrap sandbox is unavailable: bubblewrap is not installed.*fallback: "deny"/);
    expect(sandboxEvents(t.host.events.list())).toEqual([]);
  });

  it('asks the user with the reason when the fallback is ask, and runs unsandboxed only once approved', async () => {
    const approval = scriptedApproval('allowed-once');
    const t = await createTestHost({
      approval: approval.provider,
      plugins: [toolBash({ cwd: ws, env: { set: env }, sandbox: { ...missingBwrap, fallback: 'ask' } })],
    });
    const out = okOutput(await t.call('bash', { command: 'echo unsandboxed' }));
    expect(out).toMatchObject({ stdout: 'unsandboxed\n', sandbox: 'none' });
    expect(out.notices?.[0]).toMatch(/^ran without a sandbox: the bwrap sandbox is unavailable/);
    expect(approval.requests[0]?.reason).toMatch(/Run this command without a sandbox\?/);
    expect(sandboxEvents(t.host.events.list())).toEqual([{ provider: 'none', fallbackReason: expect.stringMatching(/not installed/) }]);
  });

  it('denies when the user rejects running without the sandbox', async () => {
    const t = await createTestHost({
      approval: scriptedApproval('rejected').provider,
      plugins: [toolBash({ cwd: ws, env: { set: env }, sandbox: { ...missingBwrap, fallback: 'ask' } })],
    });
    expect(await t.call('bash', { command: 'true' })).toMatchObject({ status: 'denied', code: 'APPROVAL_REJECTED' });
  });

  it('still requires the user when a later tap allows the call outright', async () => {
    const t = await createTestHost({ plugins: [toolBash({ cwd: ws, env: { set: env }, sandbox: { ...missingBwrap, fallback: 'ask' } })] });
    t.host.hooks.preExecute.tap({ name: 'permissive-rule', stage: 10 }, () => ({ decision: 'allow' }));
    const outcome = await t.call('bash', { command: 'true' });
    expect(outcome).toMatchObject({ status: 'denied', code: 'GUARD_DENIED', by: 'tool-bash/sandbox' });
    expect((outcome as { reason: string }).reason).toMatch(/needs the user's approval/);
  });

  it('runs unsandboxed with fallback none, logging the reason on every call', async () => {
    const t = await createTestHost({ plugins: [toolBash({ cwd: ws, env: { set: env }, sandbox: { ...missingBwrap, fallback: 'none' } })] });
    okOutput(await t.call('bash', { command: 'true' }));
    okOutput(await t.call('bash', { command: 'true' }));
    const logged = sandboxEvents(t.host.events.list());
    expect(logged).toHaveLength(2);
    for (const data of logged) expect(data).toMatchObject({ provider: 'none', fallbackReason: expect.stringMatching(/not installed/) });
  });

  it('leaves other tools alone', async () => {
    const t = await createTestHost({ plugins: [toolBash({ cwd: ws, env: { set: env }, sandbox: missingBwrap })] });
    t.host.tools.register(
      defineTool({ name: 'echo', description: 'echoes', input: z.object({ text: z.string() }), execute: (a) => a.text }),
    );
    expect(await t.call('echo', { text: 'hi' })).toMatchObject({ status: 'ok', output: 'hi' });
  });

  it('uses a custom provider: its wrap runs the command and its name is logged', async () => {
    const m = mark();
    const wrapped: string[] = [];
    const custom: SandboxProvider = {
      name: 'env-wrapper',
      containsProcessTree: false,
      probe: () => Promise.resolve({ ok: true }),
      wrap: (command) => {
        wrapped.push(command.file);
        return { file: 'env', args: ['WRAPPED_BY=env-wrapper', command.file, ...command.args] };
      },
      environment: () => ({ FROM_PROVIDER: 'yes' }),
    };
    const t = await createTestHost({ plugins: [toolBash({ cwd: ws, env: { set: env }, sandbox: { provider: custom } })] });
    const out = okOutput(await t.call('bash', { command: marked(m, 'echo "$WRAPPED_BY $FROM_PROVIDER"') }));
    expect(out).toMatchObject({ stdout: 'env-wrapper yes\n', sandbox: 'env-wrapper' });
    expect(wrapped).toEqual(['bash']);
  });

  it('registers without waiting for a slow probe; the first call waits for it and uses its result', async () => {
    let finishProbe: (probe: { ok: true }) => void = () => {};
    const slow: SandboxProvider = {
      name: 'slow-to-start',
      containsProcessTree: false,
      probe: () => new Promise((resolve) => (finishProbe = resolve)),
      wrap: (command) => command,
    };
    // A probe slower than the host's registration deadline, as bwrap can be on a busy machine.
    const t = await createTestHost({
      pluginTimeoutMs: 2000,
      plugins: [toolBash({ cwd: ws, env: { set: env }, sandbox: { provider: slow } })],
    });
    const first = t.call('bash', { command: 'echo after-probe' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    finishProbe({ ok: true });
    expect(okOutput(await first)).toMatchObject({ stdout: 'after-probe\n', sandbox: 'slow-to-start' });
    expect(okOutput(await t.call('bash', { command: 'echo again' }))).toMatchObject({ sandbox: 'slow-to-start' });
  });

  it('treats a custom provider whose probe throws as unavailable', async () => {
    const broken: SandboxProvider = {
      name: 'broken',
      containsProcessTree: true,
      probe: () => Promise.reject(new Error('no kernel support')),
      wrap: (command) => command,
    };
    const t = await createTestHost({ plugins: [toolBash({ cwd: ws, env: { set: env }, sandbox: { provider: broken } })] });
    const outcome = await t.call('bash', { command: 'true' });
    expect((outcome as { reason: string }).reason).toMatch(
      /broken sandbox is unavailable: the probe of the broken sandbox failed: no kernel support/,
    );
  });

  it('gives a retried body the same sandbox', async () => {
    const t = await createTestHost({ plugins: [toolBash({ cwd: ws, env: { set: env }, sandbox: { provider: 'none' } })] });
    t.host.hooks.execute.tap('retry-once', async (_ctx, next) => {
      await next();
      return next();
    });
    const out = okOutput(await t.call('bash', { command: 'echo again' }));
    expect(out).toMatchObject({ stdout: 'again\n', sandbox: 'none' });
    expect(sandboxEvents(t.host.events.list())).toHaveLength(2);
  });

  it('refuses a call that has no selection, and keeps a selection per call identity', () => {
    const selector = new SandboxSelector({
      toolName: 'bash',
      configured: { name: 'x', containsProcessTree: false, probe: () => Promise.resolve({ ok: true }), wrap: (c) => c },
      unsandboxed: { name: 'none', containsProcessTree: false, probe: () => Promise.resolve({ ok: true }), wrap: (c) => c },
      fallback: 'deny',
      probe: { ok: true },
    });
    const call = { id: 'c1', name: 'bash', token: 't1' };
    const verdict = selector.check({ call, tool: { name: 'bash' } as never, args: {}, session: 's', allowedBy: 'pre-execute' });
    expect(verdict).toEqual({ deny: expect.stringMatching(/no sandbox was selected/) });
    expect(selector.selectionOf(call)).toBeUndefined();
    const info = { call, tool: { name: 'bash' }, session: 's', signal: new AbortController().signal } as never;
    expect(selector.tap({ call, args: {}, decision: 'allow' }, info)).toBeUndefined();
    expect(selector.selectionOf(call)?.provider.name).toBe('x');
    // Another object with the same id is another call: core hands every stage of one call the same object.
    expect(selector.selectionOf({ ...call })).toBeUndefined();
  });
});

describe('options', () => {
  it.each([
    [{ cwd: '/nonexistent/dir' }, /toolBash: cwd: \/nonexistent\/dir is not an existing directory/],
    [{ cwd: ws, roots: ['/nonexistent'] }, /toolBash: roots\.0: \/nonexistent is not an existing directory/],
    [{ cwd: ws, roots: ['/usr'] }, /toolBash: cwd: .* is not inside any of the roots/],
    [{ maxTimeoutMs: 1000, defaultTimeoutMs: 2000 }, /toolBash: defaultTimeoutMs: must not exceed maxTimeoutMs/],
    [{ sandbox: { provider: 'docker' } }, /toolBash: sandbox\.provider:/],
    [{ sandbox: { fallback: 'maybe' } }, /toolBash: sandbox\.fallback:/],
    [{ env: { set: { 'BAD NAME': 'x' } } }, /toolBash: env\.set\.BAD NAME: must be a variable name/],
    [{ env: { set: { OK: 'a\u0000b' } } }, /toolBash: env\.set\.OK: a value must not contain NUL bytes/],
    [{ shell: '' }, /toolBash: shell:/],
    [{ unknown: true }, /toolBash: options: .*unknown/i],
    [{ maxOutputChars: 10 }, /toolBash: maxOutputChars:/],
  ])('refuses %j with INVALID_OPTIONS naming the field', (options, message) => {
    let thrown: unknown;
    try {
      toolBash(options as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringMatching(message) });
  });

  it('registers a tool under another name as its own plugin, next to the default one', async () => {
    const t = await createTestHost({
      plugins: [
        toolBash({ cwd: ws, env: { set: env }, sandbox: { provider: 'none' } }),
        toolBash({ name: 'shell', cwd: ws, env: { set: env }, sandbox: { provider: 'none' } }),
      ],
    });
    expect(t.host.plugins().map((p) => p.name)).toEqual(['tool-bash', 'tool-bash-shell']);
    expect(okOutput(await t.call('shell', { command: 'echo other' })).stdout).toBe('other\n');
    expect(errorOf(await t.call('shell', { command: '' })).code).toBe('INVALID_ARGS');
  });
});

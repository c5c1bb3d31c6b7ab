import { join } from 'node:path';
import { processExists } from '@deepseek-ai/dsh-core';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeHooks, cleanupAll, eventsOf, hostFor, ran, tempProject } from './fixtures/kit.js';

afterEach(() => {
  cleanupAll();
  ran.length = 0;
});

/** The pid a script wrote to `file`, or undefined while the file is missing or not yet written whole. */
function pidIn(project: ReturnType<typeof tempProject>, file: string): number | undefined {
  if (!project.exists(file)) return undefined;
  const pid = Number(project.read(file));
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Polls until `pid` is gone; the bound (30 s) only ends a hang, it never judges speed. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 1500; i += 1) {
    if (!processExists(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

describe('hook processes', () => {
  it('kills a hanging hook on timeout, with its child, and lets the call proceed (fail-open)', async () => {
    // The timeout grows until the script got as far as writing its pids: on a loaded machine bash
    // may not even start within the first one, and only a hook that is under way tests the kill.
    for (const timeout of [0.5, 2, 8, 30]) {
      const project = tempProject();
      const script = project.write(
        'hang.sh',
        `#!/bin/bash
sleep 60 &
echo $! > "$CLAUDE_PROJECT_DIR/child.pid"
echo $$ > "$CLAUDE_PROJECT_DIR/hook.pid"
trap '' TERM
wait
`,
        true,
      );
      project.settings('.claude/settings.json', claudeHooks('PreToolUse', 'Bash', [{ type: 'command', command: script, timeout }]));
      const t = await hostFor(project);
      const outcome = await t.call('bash', { command: 'ls' });
      expect(outcome.status).toBe('ok');
      const [result] = eventsOf(t, 'hook/result');
      expect(result?.data).toMatchObject({ timedOut: true, errorCode: 'HOOK_TIMEOUT', exitCode: null });
      // Killed before it wrote its own pid whole (hook.pid is written after child.pid): not under way yet.
      const hookPid = pidIn(project, 'hook.pid');
      if (hookPid === undefined) continue;
      const childPid = pidIn(project, 'child.pid');
      expect(childPid, 'the hook wrote the pid of its child before its own').toBeDefined();
      expect(await gone(childPid ?? 0)).toBe(true);
      expect(await gone(hookPid)).toBe(true);
      return;
    }
    throw new Error('the hook never started within 30 s');
  });

  it('denies on timeout when the hook says onFailure: "block", and in strict mode', async () => {
    const project = tempProject();
    const script = project.write('hang.sh', '#!/bin/sh\nexec sleep 60\n', true);
    project.settings(
      '.claude/settings.json',
      claudeHooks('PreToolUse', 'Bash', [{ type: 'command', command: script, timeout: 0.3, onFailure: 'block' }]),
    );
    const t = await hostFor(project);
    const outcome = await t.call('bash', { command: 'ls' });
    expect(outcome.status).toBe('denied');
    expect(outcome.status === 'denied' && outcome.reason).toContain('did not finish within 300 ms');
    const lenient = tempProject();
    const hang = lenient.write('hang.sh', '#!/bin/sh\nexec sleep 60\n', true);
    lenient.settings('.claude/settings.json', claudeHooks('PreToolUse', 'Bash', [{ type: 'command', command: hang, timeout: 0.3 }]));
    const strict = await hostFor(lenient, { strict: true });
    expect((await strict.call('bash', { command: 'ls' })).status).toBe('denied');
    expect(ran).toEqual([]);
  });

  it('settles when the hook has exited but a child it forked still holds stdout, and kills that child', async () => {
    const project = tempProject();
    const script = project.write(
      'fork.sh',
      `#!/bin/bash
cat > /dev/null
sleep 60 &
echo $! > "$CLAUDE_PROJECT_DIR/orphan.pid"
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"decided before the orphan"}}'
exit 0
`,
      true,
    );
    project.settings('.claude/settings.json', claudeHooks('PreToolUse', 'Bash', [{ type: 'command', command: script }]));
    const t = await hostFor(project);
    expect(await t.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'decided before the orphan' });
    const orphan = pidIn(project, 'orphan.pid');
    expect(orphan, 'the hook wrote the orphan pid before its decision').toBeDefined();
    expect(await gone(orphan ?? 0)).toBe(true);
  });

  it('reports a command that cannot start as a non-blocking error; strict mode denies', async () => {
    const project = tempProject();
    project.settings(
      '.claude/settings.json',
      claudeHooks('PreToolUse', 'Bash', [{ type: 'command', command: 'no-such-program-dsh', args: ['x'] }]),
    );
    const t = await hostFor(project);
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    expect(eventsOf(t, 'hook/result')[0]?.data).toMatchObject({ errorCode: 'HOOK_SPAWN_FAILED', exitCode: null });
    const strict = await hostFor(project, { strict: true });
    const denied = await strict.call('bash', { command: 'ls' });
    expect(denied.status === 'denied' && denied.reason).toContain('hook could not start: ENOENT');
  });

  it('treats a missing script in shell form as exit 127: non-blocking', async () => {
    const project = tempProject();
    project.settings('.claude/settings.json', claudeHooks('PreToolUse', 'Bash', [{ type: 'command', command: '/nonexistent/hook.sh' }]));
    const t = await hostFor(project);
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    expect(eventsOf(t, 'hook/result')[0]?.data).toMatchObject({ exitCode: 127, errorCode: 'HOOK_EXIT_NONZERO' });
  });

  it("runs bash hooks without the user's ~/.bashrc, also where a task runner cleared SHLVL", async () => {
    const project = tempProject();
    project.write(join(project.home, '.bashrc'), `touch "${project.dir}/bashrc-ran"\n`);
    project.settings(
      '.claude/settings.json',
      claudeHooks('PreToolUse', 'Bash', [{ type: 'command', shell: 'bash', command: 'touch claude-ran' }]),
    );
    project.write(
      '.gemini/settings.json',
      JSON.stringify({ hooks: { BeforeTool: [{ hooks: [{ type: 'command', command: 'touch gemini-ran' }] }] } }),
    );
    // Without SHLVL, bash takes itself for a top-level shell, and a stdin that is a socket (as Node
    // gives a child) for an rshd connection: it would source ~/.bashrc first.
    const shellLevel = process.env.SHLVL;
    delete process.env.SHLVL;
    try {
      const t = await hostFor(project, { env: { HOME: project.home } });
      expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    } finally {
      if (shellLevel !== undefined) process.env.SHLVL = shellLevel;
    }
    expect([project.exists('claude-ran'), project.exists('gemini-ran')]).toEqual([true, true]);
    expect(project.exists('bashrc-ran')).toBe(false);
  });

  it('runs all matching hooks at the same time', async () => {
    const project = tempProject();
    const hooks = ['a', 'b', 'c'].map((name) => ({
      type: 'command',
      command: `cat >/dev/null; touch "$CLAUDE_PROJECT_DIR/${name}.started"; for i in $(seq 1 100); do [ -e "$CLAUDE_PROJECT_DIR/a.started" ] && [ -e "$CLAUDE_PROJECT_DIR/b.started" ] && [ -e "$CLAUDE_PROJECT_DIR/c.started" ] && exit 0; sleep 0.05; done; echo "${name} never saw the others" >&2; exit 2`,
    }));
    project.settings('.claude/settings.json', claudeHooks('PreToolUse', 'Bash', hooks));
    const t = await hostFor(project);
    // Each hook waits until all three have started: run one after another, the first would deny.
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    expect(eventsOf(t, 'hook/result')).toHaveLength(3);
  });

  it('runs an identical command from several settings files once', async () => {
    const project = tempProject();
    const command = 'cat >/dev/null; echo run >> "$CLAUDE_PROJECT_DIR/count.txt"';
    const settings = claudeHooks('PreToolUse', 'Bash', [{ type: 'command', command }]);
    project.settings(`${project.home}/.claude/settings.json`, settings);
    project.settings('.claude/settings.json', settings);
    project.settings('.claude/settings.local.json', claudeHooks('PreToolUse', '*', [{ type: 'command', command }]));
    const t = await hostFor(project);
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    expect(project.read('count.txt')).toBe('run\n');
    const [invoked] = eventsOf(t, 'hook/invoked');
    expect(invoked?.data).toMatchObject({
      hook: `${project.home}/.claude/settings.json#hooks.PreToolUse[0].hooks[0]`,
      duplicates: ['.claude/settings.json#hooks.PreToolUse[0].hooks[0]', '.claude/settings.local.json#hooks.PreToolUse[0].hooks[0]'],
    });
  });

  it('kills a running hook when the step is cancelled, and the call still gets its one result', async () => {
    const project = tempProject();
    const script = project.write('hang.sh', '#!/bin/sh\necho $$ > "$CLAUDE_PROJECT_DIR/hook.pid"\nexec sleep 60\n', true);
    project.settings('.claude/settings.json', claudeHooks('PreToolUse', 'Bash', [{ type: 'command', command: script }]));
    const t = await hostFor(project);
    const controller = new AbortController();
    const step = t.host.runStep({ calls: [{ id: 'x', name: 'bash', args: { command: 'ls' } }] }, { signal: controller.signal });
    // A hang bound only: the cancel must find the hook running, however slowly the machine starts it.
    for (let i = 0; i < 1500 && pidIn(project, 'hook.pid') === undefined; i += 1) await new Promise((r) => setTimeout(r, 20));
    const hookPid = pidIn(project, 'hook.pid');
    expect(hookPid, 'the hook never wrote its pid').toBeDefined();
    controller.abort();
    const { results } = await step;
    expect(results).toHaveLength(1);
    expect(results[0]?.outcome.status).toBe('error');
    expect(eventsOf(t, 'hook/result')[0]?.data).toMatchObject({ errorCode: 'HOOK_ABORTED' });
    expect(await gone(hookPid ?? 0)).toBe(true);
    expect(ran).toEqual([]);
  });
});

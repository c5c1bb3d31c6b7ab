import { scriptedApproval } from '@deepseek-ai/dsh-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeHooks, cleanupAll, eventsOf, hostFor, ran, tempProject } from './fixtures/kit.js';
import type { HookRunRecord } from './index.js';

afterEach(() => {
  cleanupAll();
  ran.length = 0;
});

const blockRmRf = `#!/usr/bin/env bash
# The hook people write for Claude Code: read the command, block rm -rf.
input=$(cat)
command=$(printf '%s' "$input" | jq -r '.tool_input.command')
if printf '%s' "$command" | grep -Eq 'rm[[:space:]]+-rf'; then
  echo "Blocked: rm -rf is not allowed ($command)" >&2
  exit 2
fi
exit 0
`;

function withScript(body: string, event = 'PreToolUse', matcher: string | undefined = 'Bash', extra: Record<string, unknown> = {}) {
  const project = tempProject();
  const script = project.write('.claude/hooks/hook.sh', body, true);
  project.settings('.claude/settings.json', claudeHooks(event, matcher, [{ type: 'command', command: script, ...extra }]));
  return project;
}

describe('Claude Code PreToolUse hooks', () => {
  it('blocks rm -rf with a real bash script that exits 2, giving its stderr as the reason', async () => {
    const t = await hostFor(withScript(blockRmRf));
    const outcome = await t.call('bash', { command: 'rm -rf /tmp/x' });
    expect(outcome).toMatchObject({ status: 'denied', stage: 'pre-execute', code: 'PRE_EXECUTE_DENIED', by: 'hooks-bridge' });
    expect(outcome.status === 'denied' && outcome.reason).toBe('Blocked: rm -rf is not allowed (rm -rf /tmp/x)');
    expect(ran).toEqual([]);
    const ok = await t.call('bash', { command: 'ls -la' });
    expect(ok.status).toBe('ok');
    expect(ran).toEqual([{ tool: 'bash', args: { command: 'ls -la' } }]);
  });

  it('tells an onHookRun observer everything the hook saw and said, and survives one that throws', async () => {
    const runs: HookRunRecord[] = [];
    const t = await hostFor(withScript(blockRmRf), { onHookRun: (run) => runs.push(run) });
    await t.call('bash', { command: 'rm -rf /tmp/x' }, 'observed');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ call: 'observed', event: 'PreToolUse', exitCode: 2, stdout: '', decision: 'deny' });
    expect(JSON.parse(runs[0]?.stdin ?? '{}')).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'rm -rf /tmp/x' } });
    expect(runs[0]?.stderr).toContain('Blocked: rm -rf');
    const throwing = await hostFor(withScript(blockRmRf), {
      onHookRun: () => {
        throw new Error('observer bug');
      },
    });
    expect(await throwing.call('bash', { command: 'rm -rf /tmp/x' })).toMatchObject({ status: 'denied' });
    expect(throwing.host.diagnostics.list().map((d) => d.code)).toContain('HOOK_OBSERVER_FAILED');
  });

  it('feeds the documented stdin payload and CLAUDE_PROJECT_DIR to the hook', async () => {
    const project = tempProject();
    const script = project.write(
      '.claude/hooks/dump.mjs',
      `#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
writeFileSync(process.env.CLAUDE_PROJECT_DIR + '/payload.json', JSON.stringify({ input, dir: process.env.CLAUDE_PROJECT_DIR, cwd: process.cwd() }));
`,
      true,
    );
    project.settings('.claude/settings.json', claudeHooks('PreToolUse', 'Read', [{ type: 'command', command: script }]));
    project.write('notes.txt', 'hello');
    const t = await hostFor(project, { transcriptPath: '/logs/session.jsonl', permissionMode: 'acceptEdits' });
    const outcome = await t.call('read', { path: 'notes.txt' }, 'call-read-1');
    expect(outcome).toMatchObject({ status: 'ok', output: 'hello' });
    const dumped = JSON.parse(project.read('payload.json'));
    expect(dumped.dir).toBe(project.dir);
    expect(dumped.cwd).toBe(project.dir);
    expect(dumped.input).toEqual({
      session_id: t.host.session,
      transcript_path: '/logs/session.jsonl',
      cwd: project.dir,
      permission_mode: 'acceptEdits',
      hook_event_name: 'PreToolUse',
      tool_name: 'Read',
      tool_input: { file_path: `${project.dir}/notes.txt` },
      tool_use_id: 'call-read-1',
    });
  });

  it('denies with the JSON reason of hookSpecificOutput on exit 0', async () => {
    const t = await hostFor(
      withScript(`#!/bin/sh
cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no network in tests"}}'
`),
    );
    const outcome = await t.call('bash', { command: 'curl example.com' });
    expect(outcome).toMatchObject({ status: 'denied', reason: 'no network in tests' });
  });

  it('lets an allow skip the approval the host would otherwise ask for', async () => {
    const approval = scriptedApproval('rejected');
    const t = await hostFor(
      withScript(`#!/bin/sh
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'
`),
      {},
      { defaultDecision: 'ask', approval: approval.provider },
    );
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    expect(approval.requests).toHaveLength(0);
  });

  it('puts an ask to the approval provider with the hook reason', async () => {
    const approval = scriptedApproval('allowed-once');
    const t = await hostFor(
      withScript(`#!/bin/sh
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"pushes to main"}}'
`),
      {},
      { approval: approval.provider },
    );
    expect((await t.call('bash', { command: 'git push' })).status).toBe('ok');
    expect(approval.requests.map((r) => r.reason)).toEqual(['pushes to main']);
  });

  it('treats exit 1 as a non-blocking error: the call runs and the hook/result event says why', async () => {
    const t = await hostFor(withScript('#!/bin/sh\necho "lint config missing" >&2\necho more >&2\nexit 1\n'));
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    const [result] = eventsOf(t, 'hook/result');
    expect(result?.data).toMatchObject({
      exitCode: 1,
      errorCode: 'HOOK_EXIT_NONZERO',
      error: 'hook exited with code 1: lint config missing',
    });
    expect(result?.data).toMatchObject({ stderr: 'lint config missing\nmore\n' });
  });

  it('reads JSON on a non-zero exit as current Claude Code does: exit 1 with a deny denies', async () => {
    const t = await hostFor(
      withScript(`#!/bin/sh
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy"}}'
exit 1
`),
    );
    expect(await t.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'policy' });
  });

  it('never lets JSON allow override exit 2, and prefers the JSON reason to stderr', async () => {
    const project = withScript(`#!/bin/sh
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'
echo "stderr reason" >&2
exit 2
`);
    const t = await hostFor(project);
    expect(await t.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'stderr reason' });
    const project2 = withScript(`#!/bin/sh
echo '{"decision":"block","reason":"json reason"}'
echo "stderr reason" >&2
exit 2
`);
    const t2 = await hostFor(project2);
    expect(await t2.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'json reason' });
  });

  it('takes the reason from JSON printed on stderr with exit 2', async () => {
    const t = await hostFor(withScript(`#!/bin/sh\necho '{"reason":"from stderr json"}' >&2\nexit 2\n`));
    expect(await t.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'from stderr json' });
  });

  it('still denies on exit 2 with no stderr, naming the hook', async () => {
    const t = await hostFor(withScript('#!/bin/sh\nexit 2\n'));
    const outcome = await t.call('bash', { command: 'ls' });
    expect(outcome.status === 'denied' && outcome.reason).toMatch(/^hook exited with code 2 \(.*hook\.sh\)$/);
  });

  it('honours the legacy top-level decision: block denies, approve allows', async () => {
    const t = await hostFor(withScript(`#!/bin/sh\necho '{"decision":"block","reason":"legacy block"}'\n`));
    expect(await t.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'legacy block' });
    const approval = scriptedApproval('rejected');
    const t2 = await hostFor(
      withScript(`#!/bin/sh\necho '{"decision":"approve"}'\n`),
      {},
      { defaultDecision: 'ask', approval: approval.provider },
    );
    expect((await t2.call('bash', { command: 'ls' })).status).toBe('ok');
  });

  it('accepts permissionDecision at the top level, where users often put it by mistake', async () => {
    const t = await hostFor(withScript(`#!/bin/sh\necho '{"permissionDecision":"deny","permissionDecisionReason":"top level"}'\n`));
    expect(await t.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'top level' });
  });

  it('reports an invalid permissionDecision instead of silently ignoring it; strict mode denies', async () => {
    const body = `#!/bin/sh\necho '{"hookSpecificOutput":{"permissionDecision":"block"}}'\n`;
    const t = await hostFor(withScript(body));
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    expect(eventsOf(t, 'hook/result')[0]?.data).toMatchObject({ errorCode: 'HOOK_BAD_OUTPUT' });
    expect(String(eventsOf(t, 'hook/result')[0]?.data.error)).toContain('hookSpecificOutput.permissionDecision');
    const strict = await hostFor(withScript(body), { strict: true });
    const denied = await strict.call('bash', { command: 'ls' });
    expect(denied.status).toBe('denied');
    expect(denied.status === 'denied' && denied.reason).toContain('failed, and failures deny: hook output does not follow');
  });

  it('finds the JSON after shell-profile noise on stdout', async () => {
    const t = await hostFor(
      withScript(`#!/bin/sh
echo "Welcome to bash, have a nice day"
echo "loading nvm..."
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"noisy but clear"}}'
`),
    );
    expect(await t.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'noisy but clear' });
  });

  it('ignores plain text on stdout for tool events, as Claude Code does', async () => {
    const t = await hostFor(withScript('#!/bin/sh\necho "just saying hello"\n'));
    const { results, context } = await t.host.runStep({ calls: [{ id: 'p1', name: 'bash', args: { command: 'ls' } }] });
    expect(results[0]?.outcome.status).toBe('ok');
    expect(context).toBeUndefined();
  });

  it('works with a script that never reads its stdin, even for a large payload', async () => {
    const t = await hostFor(withScript('#!/bin/sh\necho "never read" >&2\nexit 2\n'));
    const outcome = await t.call('bash', { command: `echo ${'x'.repeat(300_000)}` });
    expect(outcome).toMatchObject({ status: 'denied', reason: 'never read' });
  });

  it('adds additionalContext to the step context message, after the results', async () => {
    const t = await hostFor(
      withScript(`#!/bin/sh
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"The repo uses pnpm, not npm."}}'
`),
    );
    const { context } = await t.host.runStep({ calls: [{ id: 'c1', name: 'bash', args: { command: 'npm i' } }] });
    expect(context?.text).toBe('The repo uses pnpm, not npm.');
    expect(context?.parts).toEqual([{ call: 'c1', by: 'hooks-bridge', text: 'The repo uses pnpm, not npm.' }]);
  });

  it('caps strings a hook hands to the model at 10,000 characters', async () => {
    const t = await hostFor(
      withScript(`#!/usr/bin/env python3
import json, sys
sys.stdin.read()
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "r" * 25000}}))
`),
    );
    const outcome = await t.call('bash', { command: 'ls' });
    expect(outcome.status === 'denied' && outcome.reason.startsWith('r'.repeat(10_000))).toBe(true);
    expect(outcome.status === 'denied' && outcome.reason).toContain('15000 more characters cut');
  });

  it('logs hook/invoked and hook/result for each run, tied to the call', async () => {
    const project = withScript(blockRmRf);
    const t = await hostFor(project);
    await t.call('bash', { command: 'rm -rf /' }, 'call-ev');
    const [invoked] = eventsOf(t, 'hook/invoked');
    const [result] = eventsOf(t, 'hook/result');
    expect(invoked).toMatchObject({ call: 'call-ev' });
    expect(invoked?.data).toMatchObject({
      hook: '.claude/settings.json#hooks.PreToolUse[0].hooks[0]',
      event: 'PreToolUse',
      source: '.claude/settings.json',
      dialect: 'claude',
      call: 'call-ev',
      tool: 'Bash',
    });
    expect(String(invoked?.data.command)).toMatch(/hook\.sh$/);
    expect(result).toMatchObject({ call: 'call-ev' });
    expect(result?.data).toMatchObject({ hook: invoked?.data.hook, exitCode: 2, timedOut: false, decision: 'deny', signal: null });
    expect(typeof result?.data.durationMs).toBe('number');
    const seqs = t.host.events.list().map((e) => e.type);
    expect(seqs.indexOf('hook/invoked')).toBeLessThan(seqs.indexOf('hook/result'));
    expect(seqs.indexOf('hook/result')).toBeLessThan(seqs.indexOf('tool/result'));
  });

  it('does not run a hook whose matcher does not match, and lets mcp__ names through', async () => {
    const project = tempProject();
    const script = project.write('h.sh', '#!/bin/sh\necho "mcp blocked" >&2\nexit 2\n', true);
    project.settings('.claude/settings.json', {
      hooks: {
        PreToolUse: [
          { matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'exit 2' }] },
          { matcher: 'mcp__notes__.*', hooks: [{ type: 'command', command: script }] },
        ],
      },
    });
    const t = await hostFor(project);
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    expect(eventsOf(t, 'hook/invoked')).toHaveLength(0);
    expect(await t.call('mcp__notes__add', { text: 'x' })).toMatchObject({ status: 'denied', reason: 'mcp blocked' });
  });

  it('runs exec form (args, no shell) with the CLAUDE_PROJECT_DIR placeholder substituted', async () => {
    const project = tempProject();
    project.write('.claude/hooks/deny.mjs', `process.stderr.write('exec form: ' + process.argv.slice(2).join(' ')); process.exit(2);`);
    project.settings(
      '.claude/settings.json',
      claudeHooks('PreToolUse', 'Bash', [
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's literal placeholder
        { type: 'command', command: 'node', args: ['${CLAUDE_PROJECT_DIR}/.claude/hooks/deny.mjs', 'a b', '$HOME'] },
      ]),
    );
    const t = await hostFor(project);
    expect(await t.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'exec form: a b $HOME' });
  });

  it('runs a hook only when its "if" rule matches the command', async () => {
    const t = await hostFor(withScript('#!/bin/sh\necho "no pushes" >&2\nexit 2\n', 'PreToolUse', 'Bash', { if: 'Bash(git push *)' }));
    expect((await t.call('bash', { command: 'git status' })).status).toBe('ok');
    expect(eventsOf(t, 'hook/invoked')).toHaveLength(0);
    expect(await t.call('bash', { command: 'cd repo && GIT_TRACE=1 git push origin main' })).toMatchObject({
      status: 'denied',
      reason: 'no pushes',
    });
  });
});

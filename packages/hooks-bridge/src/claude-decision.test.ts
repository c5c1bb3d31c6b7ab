import { scriptedApproval } from '@deepseek-ai/dsh-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeHooks, cleanupAll, eventsOf, hostFor, ran, tempProject } from './fixtures/kit.js';

afterEach(() => {
  cleanupAll();
  ran.length = 0;
});

function printing(json: string, event = 'PreToolUse') {
  const project = tempProject();
  const script = project.write('.claude/hooks/hook.sh', `#!/bin/sh\necho '${json}'\n`, true);
  project.settings('.claude/settings.json', claudeHooks(event, 'Bash', [{ type: 'command', command: script }]));
  return project;
}

describe("Claude Code's top-level decision", () => {
  it('reports a top-level "allow" as HOOK_BAD_OUTPUT and does not let it skip the approval', async () => {
    // No approval provider: an ask the hook cannot answer must not become a run.
    const t = await hostFor(printing('{"decision":"allow"}'), {}, { defaultDecision: 'ask' });
    const outcome = await t.call('bash', { command: 'rm -rf /tmp/x' });
    expect(outcome.status).not.toBe('ok');
    expect(ran).toEqual([]);
    const [result] = eventsOf(t, 'hook/result');
    expect(result?.data).toMatchObject({ errorCode: 'HOOK_BAD_OUTPUT' });
    expect(result?.data.decision).toBeUndefined();
    expect(String(result?.data.error)).toContain('"decision"');
  });

  it('asks the approval provider as if the hook had not decided', async () => {
    const approval = scriptedApproval('rejected');
    const t = await hostFor(printing('{"decision":"allow"}'), {}, { defaultDecision: 'ask', approval: approval.provider });
    expect((await t.call('bash', { command: 'ls' })).status).toBe('denied');
    expect(approval.requests).toHaveLength(1);
  });

  it('reports a top-level "ask" as HOOK_BAD_OUTPUT: no approval is asked for it', async () => {
    const approval = scriptedApproval('rejected');
    const t = await hostFor(printing('{"decision":"ask","reason":"check this"}'), {}, { approval: approval.provider });
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    expect(approval.requests).toHaveLength(0);
    expect(eventsOf(t, 'hook/result')[0]?.data).toMatchObject({ errorCode: 'HOOK_BAD_OUTPUT' });
  });

  it('reports a top-level "deny" as HOOK_BAD_OUTPUT, a non-blocking error as in Claude Code', async () => {
    const t = await hostFor(printing('{"decision":"deny","reason":"nope"}'));
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    expect(eventsOf(t, 'hook/result')[0]?.data).toMatchObject({ errorCode: 'HOOK_BAD_OUTPUT' });
  });

  it('denies a top-level "allow" or "ask" in strict mode, naming the bad output', async () => {
    for (const decision of ['allow', 'ask']) {
      const t = await hostFor(printing(`{"decision":"${decision}"}`), { strict: true });
      const outcome = await t.call('bash', { command: 'ls' });
      expect(outcome).toMatchObject({ status: 'denied', by: 'hooks-bridge' });
      expect(outcome.status === 'denied' && outcome.reason).toContain(
        `the top-level "decision" takes "approve" or "block", not "${decision}"`,
      );
      expect(eventsOf(t, 'hook/result')[0]?.data).toMatchObject({ errorCode: 'HOOK_BAD_OUTPUT' });
    }
    expect(ran).toEqual([]);
  });

  it('denies a top-level "allow" from a hook with onFailure: "block"', async () => {
    const project = tempProject();
    const script = project.write('.claude/hooks/hook.sh', `#!/bin/sh\necho '{"decision":"allow"}'\n`, true);
    project.settings(
      '.claude/settings.json',
      claudeHooks('PreToolUse', 'Bash', [{ type: 'command', command: script, onFailure: 'block' }]),
    );
    const t = await hostFor(project);
    expect(await t.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', by: 'hooks-bridge' });
    expect(ran).toEqual([]);
  });

  it('still takes approve and block at the top level, and allow, deny and ask in hookSpecificOutput', async () => {
    const approval = scriptedApproval('rejected');
    const approve = await hostFor(printing('{"decision":"approve"}'), {}, { defaultDecision: 'ask', approval: approval.provider });
    expect((await approve.call('bash', { command: 'ls' })).status).toBe('ok');
    const block = await hostFor(printing('{"decision":"block","reason":"blocked"}'));
    expect(await block.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'blocked' });
    const specific = (d: string) => `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${d}"}}`;
    const allow = await hostFor(printing(specific('allow')), {}, { defaultDecision: 'ask', approval: approval.provider });
    expect((await allow.call('bash', { command: 'ls' })).status).toBe('ok');
    const deny = await hostFor(printing(specific('deny')));
    expect((await deny.call('bash', { command: 'ls' })).status).toBe('denied');
    const ask = await hostFor(printing(specific('ask')), {}, { approval: approval.provider });
    expect((await ask.call('bash', { command: 'ls' })).status).toBe('denied');
    expect(approval.requests).toHaveLength(1);
  });

  it('reports a top-level "deny" from a PostToolUse hook as HOOK_BAD_OUTPUT instead of a block', async () => {
    const t = await hostFor(printing('{"decision":"deny","reason":"hide it"}', 'PostToolUse'));
    const outcome = await t.call('bash', { command: 'ls' });
    expect(outcome.status).toBe('ok');
    expect(eventsOf(t, 'hook/result')[0]?.data).toMatchObject({ errorCode: 'HOOK_BAD_OUTPUT' });
  });
});

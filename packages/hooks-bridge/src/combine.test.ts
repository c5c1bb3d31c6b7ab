import { scriptedApproval } from '@deepseek-ai/dsh-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, eventsOf, hostFor, ran, tempProject } from './fixtures/kit.js';

afterEach(() => {
  cleanupAll();
  ran.length = 0;
});

const answer = (decision: string, reason: string, delay = 0) => ({
  type: 'command',
  command: `sleep ${delay}; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${decision}","permissionDecisionReason":"${reason}"}}'`,
});
const rewrite = (command: string, delay = 0) => ({
  type: 'command',
  command: `sleep ${delay}; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"${command}"}}}'`,
});

describe('combining several hooks', () => {
  it('lets deny win over ask and allow, with the deny reasons in configuration order', async () => {
    const p = tempProject();
    p.settings('.claude/settings.json', {
      hooks: {
        PreToolUse: [
          { hooks: [answer('allow', 'fine'), answer('deny', 'first no', 0.2), answer('ask', 'maybe'), answer('deny', 'second no')] },
        ],
      },
    });
    const t = await hostFor(p);
    expect(await t.call('bash', { command: 'ls' })).toMatchObject({ status: 'denied', reason: 'first no\nsecond no' });
  });

  it('lets ask win over allow', async () => {
    const approval = scriptedApproval('rejected');
    const p = tempProject();
    p.settings('.claude/settings.json', { hooks: { PreToolUse: [{ hooks: [answer('allow', 'fine'), answer('ask', 'check this')] }] } });
    const t = await hostFor(p, {}, { approval: approval.provider });
    expect((await t.call('bash', { command: 'ls' })).status).toBe('denied');
    expect(approval.requests[0]?.reason).toBe('check this');
  });

  it('applies the last updatedInput in configuration order, not the last to finish', async () => {
    const p = tempProject();
    p.settings('.claude/settings.json', { hooks: { PreToolUse: [{ hooks: [rewrite('first', 0), rewrite('second (slow)', 0.3)] }] } });
    const t = await hostFor(p);
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    expect(ran).toEqual([{ tool: 'bash', args: { command: 'second (slow)' } }]);
    const q = tempProject();
    q.settings('.claude/settings.json', { hooks: { PreToolUse: [{ hooks: [rewrite('first (slow)', 0.3), rewrite('second', 0)] }] } });
    const t2 = await hostFor(q);
    await t2.call('bash', { command: 'ls' });
    expect(ran[1]).toEqual({ tool: 'bash', args: { command: 'second' } });
  });

  it('records the original and the rewritten arguments, and re-validates the rewrite', async () => {
    const p = tempProject();
    p.settings('.claude/settings.json', { hooks: { PreToolUse: [{ hooks: [rewrite('ls --safe')] }] } });
    const t = await hostFor(p);
    await t.call('bash', { command: 'ls' }, 'rw1');
    const result = eventsOf(t, 'tool/result')[0];
    expect(result?.data).toMatchObject({ args: { command: 'ls --safe' }, originalArgs: { command: 'ls' } });
    const q = tempProject();
    q.settings('.claude/settings.json', {
      hooks: {
        PreToolUse: [
          {
            hooks: [
              {
                type: 'command',
                command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"description":"no command"}}}'`,
              },
            ],
          },
        ],
      },
    });
    const t2 = await hostFor(q);
    const outcome = await t2.call('bash', { command: 'ls' });
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS' } });
    expect(outcome.status === 'error' && outcome.error.message).toContain('command');
  });

  it('maps updatedInput back through the tool mapping: an absolute file_path becomes our relative path', async () => {
    const p = tempProject();
    p.write('other.txt', 'the other file');
    p.settings('.claude/settings.json', {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Read',
            hooks: [
              {
                type: 'command',
                command: `jq -c '{hookSpecificOutput: {hookEventName: "PreToolUse", updatedInput: {file_path: (.tool_input.file_path | sub("secret.txt$"; "other.txt"))}}}'`,
              },
            ],
          },
        ],
      },
    });
    const t = await hostFor(p);
    expect(await t.call('read', { path: 'secret.txt' })).toMatchObject({ status: 'ok', output: 'the other file' });
    expect(ran).toEqual([{ tool: 'read', args: { path: 'other.txt' } }]);
  });

  it('drops every rewrite when the call is denied', async () => {
    const p = tempProject();
    p.settings('.claude/settings.json', { hooks: { PreToolUse: [{ hooks: [rewrite('harmless'), answer('deny', 'no')] }] } });
    const t = await hostFor(p);
    expect((await t.call('bash', { command: 'ls' })).status).toBe('denied');
    expect(eventsOf(t, 'tool/result')[0]?.data.originalArgs).toBeUndefined();
  });

  it('does not let a hook allow loosen an ask set by an earlier tap', async () => {
    const approval = scriptedApproval('rejected');
    const p = tempProject();
    p.settings('.claude/settings.json', { hooks: { PreToolUse: [{ hooks: [answer('allow', 'fine')] }] } });
    const t = await hostFor(p, { stage: 10 }, { approval: approval.provider });
    t.host.hooks.preExecute.tap({ name: 'rules', stage: 0 }, () => ({ decision: 'ask', reason: 'rule says ask' }));
    expect((await t.call('bash', { command: 'ls' })).status).toBe('denied');
    expect(approval.requests[0]?.reason).toBe('rule says ask');
  });
});

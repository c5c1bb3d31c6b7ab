import { afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, eventsOf, hostFor, ran, tempProject } from './fixtures/kit.js';

afterEach(() => {
  cleanupAll();
  ran.length = 0;
});

function copilot(file: string, hooks: Record<string, unknown>) {
  const p = tempProject();
  p.settings(`.github/hooks/${file}`, { version: 1, hooks });
  return p;
}

describe('Copilot CLI hooks', () => {
  it('feeds preToolUse the camelCase payload, with toolArgs as JSON text', async () => {
    const p = copilot('log.json', { preToolUse: [{ type: 'command', bash: 'cat > payload.json', cwd: '.' }] });
    const t = await hostFor(p);
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    const payload = JSON.parse(p.read('payload.json'));
    expect(payload).toMatchObject({ sessionId: t.host.session, cwd: p.dir, toolName: 'bash', toolArgs: '{"command":"ls"}' });
    expect(typeof payload.timestamp).toBe('number');
  });

  it('denies with permissionDecision and a script that parses toolArgs the documented way', async () => {
    const p = copilot('guard.json', {
      preToolUse: [
        {
          type: 'command',
          bash: `input=$(cat); cmd=$(echo "$input" | jq -r '.toolArgs' | jq -r '.command'); if echo "$cmd" | grep -q 'rm -rf'; then echo '{"permissionDecision":"deny","permissionDecisionReason":"dangerous"}'; fi`,
        },
      ],
    });
    const t = await hostFor(p);
    expect(await t.call('bash', { command: 'rm -rf /' })).toMatchObject({ status: 'denied', reason: 'dangerous' });
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
  });

  it('rewrites arguments with modifiedArgs', async () => {
    const p = copilot('rw.json', { preToolUse: [{ type: 'command', bash: `echo '{"modifiedArgs":{"command":"ls -1"}}'` }] });
    const t = await hostFor(p);
    await t.call('bash', { command: 'ls' });
    expect(ran).toEqual([{ tool: 'bash', args: { command: 'ls -1' } }]);
  });

  it('never blocks on a non-zero exit from preToolUse, as the CLI documents', async () => {
    const t = await hostFor(copilot('x.json', { preToolUse: [{ type: 'command', bash: 'echo nope >&2; exit 2' }] }));
    expect((await t.call('bash', { command: 'ls' })).status).toBe('ok');
    expect(eventsOf(t, 'hook/result')[0]?.data).toMatchObject({ errorCode: 'HOOK_EXIT_NONZERO' });
  });

  it('hands a postToolUseFailure exit-2 stderr to the model as recovery guidance', async () => {
    const t = await hostFor(copilot('f.json', { postToolUseFailure: [{ type: 'command', bash: 'jq -r .error >&2; exit 2' }] }));
    const { context } = await t.host.runStep({ calls: [{ id: 'c1', name: 'fail', args: { why: 'quota' } }] });
    expect(context?.text).toBe('it broke: quota');
  });

  it('uses the VS Code-compatible snake_case payload for a PascalCase event', async () => {
    const p = copilot('vs.json', { PreToolUse: [{ type: 'command', bash: 'cat > payload.json', timeoutSec: 120 }] });
    const t = await hostFor(p);
    await t.call('bash', { command: 'ls' });
    expect(JSON.parse(p.read('payload.json'))).toMatchObject({
      hook_event_name: 'PreToolUse',
      session_id: t.host.session,
      tool_name: 'bash',
      tool_input: { command: 'ls' },
    });
  });

  it('reads hook files in name order and skips powershell-only entries', async () => {
    const p = tempProject();
    p.settings('.github/hooks/b.json', { version: 1, hooks: { preToolUse: [{ type: 'command', bash: 'echo b >> order.txt' }] } });
    p.settings('.github/hooks/a.json', {
      version: 1,
      hooks: {
        preToolUse: [
          { type: 'command', bash: 'echo a >> order.txt' },
          { type: 'command', powershell: 'Write-Output x' },
        ],
      },
    });
    const t = await hostFor(p);
    await t.call('bash', { command: 'ls' });
    expect(eventsOf(t, 'hook/invoked').map((e) => e.data.hook)).toEqual([
      '.github/hooks/a.json#hooks.preToolUse[0]',
      '.github/hooks/b.json#hooks.preToolUse[0]',
    ]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { claudeHooks, cleanupAll, eventsOf, hostFor, ran, tempProject } from './fixtures/kit.js';

afterEach(() => {
  cleanupAll();
  ran.length = 0;
});

function project(settings: Record<string, unknown>) {
  const p = tempProject();
  p.settings('.claude/settings.json', settings);
  return p;
}

describe('Claude Code PostToolUse and PostToolUseFailure hooks', () => {
  it('gives the hook tool_response and adds its additionalContext to the step context', async () => {
    const p = project(
      claudeHooks('PostToolUse', 'Bash', [
        {
          type: 'command',
          command: `python3 -c '
import json, sys
i = json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": i["hook_event_name"] + " saw " + i["tool_response"]["stdout"]}}))'`,
        },
      ]),
    );
    const t = await hostFor(p);
    const { results, context } = await t.host.runStep({ calls: [{ id: 'p1', name: 'bash', args: { command: 'ls' } }] });
    expect(results[0]?.outcome).toMatchObject({ status: 'ok', output: { stdout: 'ran: ls', exitCode: 0 } });
    expect(context?.text).toBe('PostToolUse saw ran: ls');
  });

  it('keeps the output on exit 2 and hands stderr to the model as feedback, as Claude Code does', async () => {
    const t = await hostFor(
      project(claudeHooks('PostToolUse', 'Bash', [{ type: 'command', command: 'echo "lint: 3 errors" >&2; exit 2' }])),
    );
    const { results, context } = await t.host.runStep({ calls: [{ id: 'p1', name: 'bash', args: { command: 'ls' } }] });
    expect(results[0]?.outcome.status).toBe('ok');
    expect(context?.text).toBe('lint: 3 errors');
  });

  it('withholds the output on a block when postBlock is "withhold"', async () => {
    const t = await hostFor(
      project(
        claudeHooks('PostToolUse', 'Bash', [{ type: 'command', command: `echo '{"decision":"block","reason":"secrets in output"}'` }]),
      ),
      {
        postBlock: 'withhold',
      },
    );
    expect(await t.call('bash', { command: 'env' })).toMatchObject({
      status: 'blocked',
      code: 'POST_EXECUTE_BLOCKED',
      reason: 'secrets in output',
    });
  });

  it('replaces the output with updatedToolOutput when it fits the tool output schema, and ignores it when not', async () => {
    const good = await hostFor(
      project(
        claudeHooks('PostToolUse', 'Edit', [
          { type: 'command', command: `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"replaced":7}}}'` },
        ]),
      ),
    );
    expect(await good.call('edit', { path: 'a.ts' })).toMatchObject({ status: 'ok', output: { replaced: 7 }, stage: 'post-execute' });
    const bad = await hostFor(
      project(
        claudeHooks('PostToolUse', 'Edit', [
          { type: 'command', command: `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"nope"}}'` },
        ]),
      ),
    );
    expect(await bad.call('edit', { path: 'a.ts' })).toMatchObject({ status: 'ok', output: { replaced: 1 } });
    expect(bad.host.diagnostics.list().map((d) => d.code)).toContain('HOOK_OUTPUT_REJECTED');
  });

  it('fires PostToolUseFailure, not PostToolUse, for a failed call, with the error text', async () => {
    const p = tempProject();
    p.settings('.claude/settings.json', {
      hooks: {
        PostToolUse: [{ hooks: [{ type: 'command', command: 'echo post >> "$CLAUDE_PROJECT_DIR/post.txt"' }] }],
        PostToolUseFailure: [
          {
            matcher: 'Fail',
            hooks: [
              {
                type: 'command',
                command: `jq -c '{hookSpecificOutput: {hookEventName: "PostToolUseFailure", additionalContext: ("retry hint for: " + .error)}}'`,
              },
            ],
          },
        ],
      },
    });
    const t = await hostFor(p);
    const { results, context } = await t.host.runStep({ calls: [{ id: 'f1', name: 'fail', args: { why: 'disk full' } }] });
    expect(results[0]?.outcome).toMatchObject({ status: 'error', error: { code: 'BROKEN' } });
    expect(context?.text).toBe('retry hint for: it broke: disk full');
    expect(p.exists('post.txt')).toBe(false);
  });

  it('runs no post hook for a call that a pre hook denied, but keeps the pre hook context', async () => {
    const p = tempProject();
    p.settings('.claude/settings.json', {
      hooks: {
        PreToolUse: [
          {
            hooks: [
              {
                type: 'command',
                command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no","additionalContext":"pre context"}}'`,
              },
            ],
          },
        ],
        PostToolUse: [{ hooks: [{ type: 'command', command: 'echo post >> "$CLAUDE_PROJECT_DIR/post.txt"' }] }],
      },
    });
    const t = await hostFor(p);
    const { results, context } = await t.host.runStep({ calls: [{ id: 'd1', name: 'bash', args: { command: 'ls' } }] });
    expect(results[0]?.outcome.status).toBe('denied');
    expect(context?.text).toBe('pre context');
    expect(p.exists('post.txt')).toBe(false);
    expect(eventsOf(t, 'hook/invoked')).toHaveLength(1);
  });

  it('orders context: pre hooks first, then post hooks, each in configuration order', async () => {
    const ctx = (event: string, text: string) => ({
      type: 'command',
      command: `echo '{"hookSpecificOutput":{"hookEventName":"${event}","additionalContext":"${text}"}}'`,
    });
    const p = tempProject();
    p.settings('.claude/settings.json', {
      hooks: {
        PostToolUse: [{ hooks: [ctx('PostToolUse', 'post 1'), ctx('PostToolUse', 'post 2')] }],
        PreToolUse: [
          {
            hooks: [
              {
                type: 'command',
                command: `sleep 0.2; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"pre 1"}}'`,
              },
              ctx('PreToolUse', 'pre 2'),
            ],
          },
        ],
      },
    });
    const t = await hostFor(p);
    const { context } = await t.host.runStep({ calls: [{ id: 'o1', name: 'bash', args: { command: 'ls' } }] });
    expect(context?.text).toBe('pre 1\n\npre 2\n\npost 1\n\npost 2');
  });
});

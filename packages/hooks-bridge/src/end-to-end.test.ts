import { createTestHost } from '@deepseek-ai/dsh-core/testing';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeHooks, cleanupAll, eventsOf, type TempProject, tempProject } from './fixtures/kit.js';
import { hooksBridge } from './index.js';

afterEach(cleanupAll);

const blockRmRf = `#!/usr/bin/env bash
command=$(jq -r '.tool_input.command')
if printf '%s' "$command" | grep -Eq 'rm[[:space:]]+-rf'; then
  echo "Blocked: rm -rf is not allowed" >&2
  exit 2
fi
`;

function hostWithRealTools(project: TempProject) {
  return createTestHost({
    plugins: [
      toolBash({ cwd: project.dir, sandbox: { provider: 'none' } }),
      toolFs({ cwd: project.dir }),
      hooksBridge({ projectDir: project.dir, homeDir: project.home, killGraceMs: 200, drainMs: 150 }),
    ],
  });
}

describe('with the real bash and file tools', () => {
  it('blocks rm -rf through the Claude Code script people already use, and the files survive', async () => {
    const project = tempProject();
    project.write('keep/important.txt', 'precious');
    const script = project.write('.claude/hooks/block-rm.sh', blockRmRf, true);
    project.settings('.claude/settings.json', claudeHooks('PreToolUse', 'Bash', [{ type: 'command', command: script }]));
    const t = await hostWithRealTools(project);
    const denied = await t.call('bash', { command: 'rm -rf keep' });
    expect(denied).toMatchObject({ status: 'denied', reason: 'Blocked: rm -rf is not allowed' });
    expect(project.read('keep/important.txt')).toBe('precious');
    const ok = await t.call('bash', { command: 'cat keep/important.txt' });
    expect(ok.status).toBe('ok');
    expect(JSON.stringify(ok)).toContain('precious');
  });

  it('gives a Read hook the absolute file_path and a PostToolUse hook the bash tool_response', async () => {
    const project = tempProject();
    project.write('.env', 'SECRET=1');
    project.settings('.claude/settings.json', {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Read|Edit|Write',
            hooks: [
              {
                type: 'command',
                command: `jq -r .tool_input.file_path > "$CLAUDE_PROJECT_DIR/seen-path.txt"; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no secrets"}}'`,
                if: 'Read(*.env)',
              },
            ],
          },
        ],
        PostToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                command: `jq -c '{hookSpecificOutput: {hookEventName: "PostToolUse", additionalContext: ("bash said: " + (.tool_response | tostring))}}'`,
              },
            ],
          },
        ],
      },
    });
    const t = await hostWithRealTools(project);
    expect(await t.call('read', { file_path: `${project.dir}/.env` })).toMatchObject({ status: 'denied', reason: 'no secrets' });
    expect(project.read('seen-path.txt').trim()).toBe(`${project.dir}/.env`);
    const { context } = await t.host.runStep({ calls: [{ id: 'b1', name: 'bash', args: { command: 'echo hello-from-bash' } }] });
    expect(context?.text).toContain('hello-from-bash');
    expect(eventsOf(t, 'hook/result').length).toBeGreaterThanOrEqual(2);
  });
});

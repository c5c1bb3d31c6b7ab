import { afterEach, describe, expect, it } from 'vitest';
import { claudeHooks, cleanupAll, hostFor, ran, tempProject } from './fixtures/kit.js';

afterEach(() => {
  cleanupAll();
  ran.length = 0;
});

// Writes each payload's agent fields (or "main") to a file, one line per call, and blocks a reviewer's bash.
const recordAgent = `#!/usr/bin/env bash
input=$(cat)
printf '%s\\n' "$input" | jq -c '{agent_id: (.agent_id // "main"), agent_type: (.agent_type // "main")}' >> "$CLAUDE_PROJECT_DIR/agents.jsonl"
if [ "$(printf '%s' "$input" | jq -r '.agent_type // ""')" = "reviewer" ]; then
  echo "reviewers do not run commands" >&2
  exit 2
fi
`;

describe("a subagent's call in a Claude Code hook's input", () => {
  it('carries agent_id and agent_type for a nested call, and neither for the main agent', async () => {
    const project = tempProject();
    const script = project.write('.claude/hooks/agent.sh', recordAgent, true);
    project.settings('.claude/settings.json', claudeHooks('PreToolUse', 'Bash', [{ type: 'command', command: script }]));
    const t = await hostFor(project);
    expect((await t.call('bash', { command: 'ls' }, 'm1')).status).toBe('ok');
    const { results } = await t.host.runStep(
      { calls: [{ id: 'm1:agent:0', name: 'bash', args: { command: 'ls' } }] },
      { parent: { id: 'm1', token: 'tok', agent: { id: 'agent-7', type: 'reviewer' } } },
    );
    expect(results[0]?.outcome).toMatchObject({ status: 'denied', reason: 'reviewers do not run commands' });
    const lines = project
      .read('agents.jsonl')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([
      { agent_id: 'main', agent_type: 'main' },
      { agent_id: 'agent-7', agent_type: 'reviewer' },
    ]);
    expect(ran).toEqual([{ tool: 'bash', args: { command: 'ls' } }]);
  });
});

import { z } from '@deepseek-ai/dsh-core';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import type { ModelMessage } from 'ai';
import { tool } from 'ai';
import { afterAll, expect, it } from 'vitest';
import { expectOneCallAndResultEach, loggedHost } from './fixtures/logged-host.js';
import { resultsOf, workspace } from './fixtures/workspace.js';
import { aiSdkApprovals, dshTools } from './index.js';

const ws = workspace();
afterAll(() => ws.remove());

// AI SDK 7 calls `toolApproval({ toolCall, tools, messages, ... })` in place of each tool's `needsApproval`.
it("answers AI SDK 7's toolApproval with dsh's decision and reason, and leaves other tools to their own needsApproval", async () => {
  const approvals = aiSdkApprovals();
  const perms = permissions({
    projectDir: ws.dir,
    homeDir: ws.dir,
    settingsFiles: false,
    grantsFile: false,
    rules: { ask: ['Bash(touch *)'], allow: ['Bash(echo *)'] },
  });
  const host = await loggedHost({ approval: perms.approval(approvals.provider) });
  await host.use(toolBash({ cwd: ws.dir }));
  await host.use(perms);
  const dsh = dshTools(host, { approvals });
  const messages: ModelMessage[] = [{ role: 'user', content: 'go' }];
  const others = { theirs: tool({ description: 'x', inputSchema: z.object({}), needsApproval: async () => true, execute: async () => 1 }) };

  const asked = await dsh.toolApproval({
    toolCall: { toolCallId: 'v7a', toolName: 'bash', input: { command: 'touch x' } },
    tools: others,
    messages,
  });
  expect(asked).toEqual({ type: 'user-approval', reason: expect.stringContaining('touch') });
  expect(
    await dsh.toolApproval({ toolCall: { toolCallId: 'v7b', toolName: 'bash', input: { command: 'echo hi' } }, tools: others, messages }),
  ).toBe('not-applicable');
  expect(await dsh.toolApproval({ toolCall: { toolCallId: 'v7c', toolName: 'theirs', input: {} }, tools: others, messages })).toEqual({
    type: 'user-approval',
  });

  dsh.abandon('test over');
  await dsh.settled();
  // The call to a tool outside the pipeline is not dsh's to log.
  await expectOneCallAndResultEach(host, ['v7a', 'v7b']);
  // Abandoned: the asked call is denied (cancelled), the admitted one never executed.
  expect(new Map(resultsOf(host.events.list()))).toEqual(
    new Map([
      ['v7a', 'denied'],
      ['v7b', 'error'],
    ]),
  );
});

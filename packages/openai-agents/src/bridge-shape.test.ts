import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ApprovalProvider, createHost, type Host, openJsonlSink } from '@deepseek-ai/dsh-core';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from './fixtures/hosts.js';
import { toolOutputs } from './fixtures/scripted-model.js';
import { agentWith, logOnDisk } from './fixtures/setup.js';
import { AgentsErrorCode, openaiAgents, openaiAgentsApprovals, openaiAgentsBridge } from './index.js';

/** A host with tool-fs whose rules ask before a write, created with `approval`. */
async function fsHost(approval: ApprovalProvider | undefined) {
  const dir = tempDir();
  writeFileSync(join(dir, 'notes.txt'), 'milk\n');
  const sessionLog = join(tempDir('dsh-openai-agents-log-'), 'session.jsonl');
  const host = createHost({
    ...(approval === undefined ? {} : { approval }),
    defaultDecision: 'allow',
    sink: await openJsonlSink(sessionLog),
  });
  await host.use(toolFs({ cwd: dir }));
  await host.use(
    permissions({ projectDir: dir, cwd: dir, homeDir: dir, settingsFiles: false, grantsFile: false, rules: { ask: ['Write'] } }),
  );
  return { dir, host, sessionLog };
}

const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name).sort();
const toolNames = (host: Host) => host.tools.schemas().map((s) => s.name);

describe('openaiAgentsBridge(host, { approvals })', () => {
  it("turns dsh's ask into the run's interruption and runs the approved call once", async () => {
    const approvals = openaiAgentsApprovals();
    const { host, sessionLog } = await fsHost(approvals.provider);
    const bridge = openaiAgentsBridge(host, { approvals });
    const { agent, runner } = agentWith(bridge.tools({ include: ['write'] }), [
      { calls: [{ id: 'call_w', name: 'write', args: { file_path: 'copy.txt', content: 'milk\n' } }] },
      { text: 'done' },
    ]);
    const first = await runner.run(agent, 'copy');
    const [item] = first.interruptions;
    if (item === undefined) throw new Error('no interruption');
    expect(await bridge.describe(item)).toMatchObject({ state: 'pending', tool: 'write' });
    first.state.approve(item);
    const second = await runner.run(agent, first.state);
    expect(second.finalOutput).toBe('done');
    await bridge.settled();
    const results = logOnDisk(sessionLog).filter((e) => e.type === 'tool/result');
    expect(results.map((e) => [e.call, (e.data.outcome as { status: string }).status])).toEqual([['call_w', 'ok']]);
  });

  it('offers include minus exclude, and refuses a name the host lacks with AGENTS_UNKNOWN_TOOL', async () => {
    const { host } = await fsHost(undefined);
    const bridge = openaiAgentsBridge(host);
    expect(names(bridge.tools({ include: ['read', 'write', 'edit'], exclude: ['write'] }))).toEqual(['edit', 'read']);
    expect(names(bridge.tools({ exclude: ['write'] }))).toEqual(
      toolNames(host)
        .filter((n) => n !== 'write')
        .sort(),
    );
    expect(() => bridge.tools({ exclude: ['nope'] })).toThrow(expect.objectContaining({ code: AgentsErrorCode.UNKNOWN_TOOL }));
  });

  it('lets the host own provider answer when no approvals are given, so the run does not interrupt', async () => {
    const { host, sessionLog } = await fsHost(async () => 'rejected');
    const bridge = openaiAgentsBridge(host);
    const { agent, model, runner } = agentWith(bridge.tools(), [
      { calls: [{ id: 'call_w', name: 'write', args: { file_path: 'copy.txt', content: 'milk\n' } }] },
      { text: 'done' },
    ]);
    const result = await runner.run(agent, 'copy');
    expect(result.interruptions).toEqual([]);
    expect(toolOutputs(model.requests[1])[0]?.[1]).toMatch(/^Denied \(APPROVAL_REJECTED\)/);
    await bridge.settled();
    expect(logOnDisk(sessionLog).filter((e) => e.type === 'tool/result')).toHaveLength(1);
  });

  it('refuses approvals that already serve another bridge with AGENTS_APPROVALS_IN_USE', async () => {
    const approvals = openaiAgentsApprovals();
    const { host } = await fsHost(approvals.provider);
    openaiAgentsBridge(host, { approvals });
    expect(() => openaiAgentsBridge(host, { approvals })).toThrow(expect.objectContaining({ code: AgentsErrorCode.APPROVALS_IN_USE }));
  });

  it('refuses an unknown option with AGENTS_INVALID_OPTIONS naming it', async () => {
    const { host } = await fsHost(undefined);
    expect(() => openaiAgentsBridge(host, { include: ['read'] } as never)).toThrow(
      expect.objectContaining({ code: AgentsErrorCode.INVALID_OPTIONS }),
    );
    expect(() => openaiAgentsBridge(host, { approvals: {} } as never)).toThrow(/approvals: must be made by openaiAgentsApprovals/);
  });
});

describe('the deprecated names', () => {
  it('openaiAgents() with bridge.tools(host, { names }) still offers the named tools', async () => {
    const bridge = openaiAgents();
    const { host } = await fsHost(bridge.approval);
    expect(names(bridge.tools(host, { names: ['read', 'glob'] }))).toEqual(['glob', 'read']);
    expect(() => bridge.tools(host, { names: ['read'], include: ['read'] })).toThrow(
      expect.objectContaining({ code: AgentsErrorCode.INVALID_OPTIONS }),
    );
  });
});

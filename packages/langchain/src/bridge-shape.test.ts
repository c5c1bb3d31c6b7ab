import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ApprovalProvider, createHost, openJsonlSink } from '@deepseek-ai/dsh-core';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { eventsOf, scriptedModel, tempDir, toolMessages } from './fixtures/setup.js';
import { LangChainErrorCode, langchainApprovals, langchainBridge } from './index.js';

/** A host with tool-fs whose rules ask before a write, created with `approval`. */
async function fsHost(approval: ApprovalProvider | undefined) {
  const dir = tempDir();
  writeFileSync(join(dir, 'notes.txt'), 'milk\n');
  const sessionLog = join(tempDir('dsh-langchain-log-'), 'session.jsonl');
  const host = createHost({
    ...(approval === undefined ? {} : { approval }),
    defaultDecision: 'allow',
    sink: await openJsonlSink(sessionLog),
  });
  await host.use(toolFs({ cwd: dir }));
  await host.use(
    permissions({ projectDir: dir, cwd: dir, homeDir: dir, settingsFiles: false, grantsFile: false, rules: { ask: ['Write'] } }),
  );
  return { dir, host };
}

const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name).sort();
const write = { id: 'call_w', name: 'write', args: { file_path: 'copy.txt', content: 'milk\n' } };

describe('langchainBridge(host, { approvals })', () => {
  it("turns dsh's ask into an interrupt, and settled() does not wait for the call the person holds", async () => {
    const approvals = langchainApprovals();
    const { host } = await fsHost(approvals.provider);
    const bridge = langchainBridge(host, { approvals });
    const agent = createAgent({
      model: scriptedModel([{ calls: [write] }, { text: 'done' }]),
      tools: bridge.tools({ include: ['write'] }),
      middleware: [bridge.middleware()],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: 'shape' } };
    const first = await agent.invoke({ messages: [{ role: 'user', content: 'copy' }] }, config);
    expect(first.__interrupt__).toHaveLength(1);
    await bridge.settled();
    expect(eventsOf(host, 'tool/result')).toEqual([]);
    expect(bridge.pending().map((p) => p.callId)).toEqual(['call_w']);
    const second = await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), config);
    expect(toolMessages(second.messages)).toEqual([['call_w', expect.any(String), 'success']]);
    await bridge.settled();
    expect(eventsOf(host, 'tool/result').map(([call]) => call)).toEqual(['call_w']);
  });

  it('offers include minus exclude, and refuses a name the host lacks with LANGCHAIN_UNKNOWN_TOOL', async () => {
    const { host } = await fsHost(undefined);
    const bridge = langchainBridge(host);
    expect(names(bridge.tools({ include: ['read', 'write', 'edit'], exclude: ['write'] }))).toEqual(['edit', 'read']);
    expect(() => bridge.tools({ exclude: ['nope'] })).toThrow(expect.objectContaining({ code: LangChainErrorCode.UNKNOWN_TOOL }));
  });

  it('lets the host own provider answer when no approvals are given', async () => {
    const { host } = await fsHost(async () => 'rejected');
    const bridge = langchainBridge(host);
    const agent = createAgent({
      model: scriptedModel([{ calls: [write] }, { text: 'done' }]),
      tools: bridge.tools(),
      middleware: [bridge.middleware()],
      checkpointer: new MemorySaver(),
    });
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'copy' }] }, { configurable: { thread_id: 'own' } });
    expect(result.__interrupt__).toBeUndefined();
    expect(toolMessages(result.messages)).toEqual([['call_w', expect.stringMatching(/^Denied \(APPROVAL_REJECTED\)/), 'error']]);
    await bridge.settled();
  });

  it('refuses approvals that already serve another bridge with LANGCHAIN_APPROVALS_IN_USE', async () => {
    const approvals = langchainApprovals();
    const { host } = await fsHost(approvals.provider);
    langchainBridge(host, { approvals });
    expect(() => langchainBridge(host, { approvals })).toThrow(expect.objectContaining({ code: LangChainErrorCode.APPROVALS_IN_USE }));
    expect(() => langchainBridge(host, { fallback: async () => 'rejected' } as never)).toThrow(
      expect.objectContaining({ code: LangChainErrorCode.INVALID_OPTIONS }),
    );
  });
});

describe('the deprecated langchainBridge(options)', () => {
  it('still works with the host passed to tools(host) and middleware(host), and asks for the host when it has none', async () => {
    const bridge = langchainBridge();
    expect(() => bridge.middleware()).toThrow(expect.objectContaining({ code: LangChainErrorCode.INVALID_OPTIONS }));
    const { host } = await fsHost(bridge.approval);
    expect(names(bridge.tools(host, { include: ['read', 'glob'] }))).toEqual(['glob', 'read']);
    // Bound by its first use: the host may be left out from then on.
    expect(names(bridge.tools({ include: ['read'] }))).toEqual(['read']);
    expect(bridge.middleware(host).name).toBe('dsh');
  });
});

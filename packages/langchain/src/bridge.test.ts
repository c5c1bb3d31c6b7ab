import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHost } from '@deepseek-ai/dsh-core';
import { ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { eventsOf, loggedOnDisk, onePerCall, setup } from './fixtures/setup.js';
import { LangChainBridgeError, LangChainErrorCode, langchainBridge } from './index.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(LangChainBridgeError);
    return `${(error as LangChainBridgeError).code}: ${(error as Error).message}`;
  }
  return undefined;
}

describe('langchainBridge setup', () => {
  it('refuses bad options with a code and the field name', () => {
    expect(codeOf(() => langchainBridge({ maxParallel: 0 }))).toMatch(/^LANGCHAIN_INVALID_OPTIONS: langchainBridge: maxParallel: /);
    expect(codeOf(() => langchainBridge({ parallelTools: ['has space'] }))).toMatch(/parallelTools\.0: must be letters/);
    expect(codeOf(() => langchainBridge({ nope: true } as never))).toMatch(/^LANGCHAIN_INVALID_OPTIONS: /);
  });

  it('refuses a second host and an unknown tool name', async () => {
    const s = await setup();
    expect(codeOf(() => s.bridge.middleware(createHost()))).toMatch(/^LANGCHAIN_INVALID_OPTIONS: host: this bridge serves another host/);
    expect(codeOf(() => s.bridge.tools(s.host, { include: ['nope'] }))).toBe(
      `${LangChainErrorCode.UNKNOWN_TOOL}: tools: include: the host has no tool named "nope"`,
    );
    expect(s.bridge.tools(s.host, { include: ['read'] }).map((t) => t.name)).toEqual(['read']);
  });

  it('answers a tool call without an id with an error message and runs nothing', async () => {
    const s = await setup();
    const middleware = s.bridge.middleware(s.host);
    let handled = 0;
    const answer = await middleware.wrapToolCall?.(
      { toolCall: { name: 'bash', args: { command: 'touch x' } }, tool: undefined, state: { messages: [] }, runtime: {} } as never,
      (() => {
        handled += 1;
        return new ToolMessage({ content: 'ran', tool_call_id: '' });
      }) as never,
    );
    expect(handled).toBe(0);
    expect(ToolMessage.isInstance(answer) && answer.content).toMatch(/^Error \(LANGCHAIN_MISSING_TOOL_CALL_ID\)/);
    expect(existsSync(join(s.dir, 'x'))).toBe(false);
    expect(eventsOf(s.host, 'tool/call')).toHaveLength(0);
    expect(await loggedOnDisk(s)).toEqual({});
  });
});

describe('dsh tools as plain LangChain tools', () => {
  it('runs a dsh tool through the pipeline when invoked without the middleware', async () => {
    const s = await setup();
    writeFileSync(join(s.dir, 'plain.txt'), 'plain text');
    const read = s.tools.find((t) => t.name === 'read');
    const answer = await read?.invoke({ id: 'call_plain', name: 'read', args: { file_path: 'plain.txt' }, type: 'tool_call' });
    expect(ToolMessage.isInstance(answer) && answer.content).toContain('plain text');
    expect(eventsOf(s.host, 'tool/result').map(([id]) => id)).toEqual(['call_plain']);
    expect(await loggedOnDisk(s)).toEqual(onePerCall('call_plain'));
  });

  it('denies an ask outside a graph run, or asks the fallback provider when there is one', async () => {
    const denied = await setup({ rules: { ask: ['Bash(echo:*)'] } });
    const outside = await denied.host.runStep({ calls: [{ id: 'c1', name: 'bash', args: { command: 'echo hi > out.txt' } }] });
    expect(outside.results[0]?.outcome).toMatchObject({ status: 'denied', stage: 'approval' });
    expect(JSON.stringify(outside.results[0]?.outcome)).toContain(LangChainErrorCode.APPROVAL_OUTSIDE_GRAPH);
    expect(existsSync(join(denied.dir, 'out.txt'))).toBe(false);

    const asked: string[] = [];
    const allowed = await setup({
      rules: { ask: ['Bash(echo:*)'] },
      bridge: {
        fallback: (request) => {
          asked.push(request.call.id);
          return 'allowed-once';
        },
      },
    });
    await allowed.host.runStep({ calls: [{ id: 'c2', name: 'bash', args: { command: 'echo hi > out.txt' } }] });
    expect(asked).toEqual(['c2']);
    expect(readFileSync(join(allowed.dir, 'out.txt'), 'utf8')).toBe('hi\n');
    expect(await loggedOnDisk(denied)).toEqual(onePerCall('c1'));
    expect(await loggedOnDisk(allowed)).toEqual(onePerCall('c2'));
  });
});

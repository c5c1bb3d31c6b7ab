import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentFor, setup } from './fixtures/setup.js';

/** The `[call id, outcome status]` of every `tool/result` line in the JSONL session log, read as it is on disk now. */
function resultsOnDisk(path: string): [string, string][] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { type: string; call: string; data: { outcome: { status: string } } })
    .filter((event) => event.type === 'tool/result')
    .map((event) => [event.call, event.data.outcome.status]);
}

describe('bridge.settled()', () => {
  it('resolves at once for a bridge that has seen no call', async () => {
    const s = await setup();
    await s.bridge.settled();
    expect(resultsOnDisk(s.sessionLog)).toEqual([]);
  });

  it('resolves once every call it has seen has its tool/result in the log on disk, those a run left behind included', async () => {
    const s = await setup({ rules: { allow: ['Read', 'Bash(sleep:*)'], ask: ['Bash(echo:*)'] } });
    writeFileSync(join(s.dir, 'a.txt'), 'A');
    const calls = [
      { id: 'call_read', name: 'read', args: { file_path: 'a.txt' } },
      { id: 'call_ask', name: 'bash', args: { command: 'echo asked' } },
      { id: 'call_slow', name: 'bash', args: { command: 'sleep 0.3' } },
    ];
    // v1's tool node returns at the interrupt without waiting for the calls beside it.
    const { agent } = agentFor(s, [{ calls }, { text: 'done' }], [], 'v1');
    const first = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, { configurable: { thread_id: 'settled' } });
    expect(first.__interrupt__).toHaveLength(1);
    // A call waiting for a person is not settled: end it, then wait for the rest.
    expect(s.bridge.cancelPending()).toBe(1);
    await s.bridge.settled();
    expect(resultsOnDisk(s.sessionLog)).toEqual([
      ['call_read', 'ok'],
      ['call_ask', 'denied'],
      ['call_slow', 'ok'],
    ]);
  });

  it('keeps idle() as the same function (deprecated)', async () => {
    const s = await setup();
    expect(s.bridge.idle).toBe(s.bridge.settled);
  });
});

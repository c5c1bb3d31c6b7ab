import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentMessage, ToolResultsMessage } from '../messages.js';
import type { Model } from '../model.js';
import { runAgent } from '../run-agent.js';
import type { FakeServer, ScriptedTurn } from './fake-http.js';
import { standardScript, tenTurnScript, type Workspace, workspace } from './scenario.js';

/** What the shared adapter tests need to know about one provider. */
export interface AdapterUnderTest {
  readonly name: string;
  start(turns: readonly ScriptedTurn[]): Promise<FakeServer>;
  model(server: FakeServer, stream: boolean): Model;
  /** The id the server gives call `i` of turn `t`, when it gives one. */
  readonly servedId?: (t: number, i: number) => string;
  /** The provider's words for a cut-off turn and a refusal. */
  readonly finish: { readonly maxTokens: string; readonly refusal: string };
}

const task: AgentMessage[] = [{ role: 'user', text: 'Combine a.txt and b.txt into c.txt.' }];

function resultsOf(messages: readonly AgentMessage[], index: number): ToolResultsMessage {
  return messages.filter((m): m is ToolResultsMessage => m.role === 'tool')[index] as ToolResultsMessage;
}

/**
 * The tests every adapter passes, non-streaming and streaming: the official
 * client against the provider's fake server, real tools on a real host.
 */
export function adapterSuite(a: AdapterUnderTest): void {
  describe.each([false, true])(`${a.name} (stream: %s)`, (stream) => {
    let ws: Workspace;
    let server: FakeServer | undefined;
    beforeEach(async () => {
      ws = await workspace();
    });
    afterEach(async () => {
      await server?.close();
      server = undefined;
      await ws.cleanup();
    });

    it('runs parallel calls, a denial, a malformed argument and an unknown tool, answering every call', async () => {
      server = await a.start(standardScript());
      const texts: string[] = [];
      const model = a.model(server, stream);
      const result = await runAgent({ host: ws.host, model, messages: task, system: 'You are terse.', onText: (t) => texts.push(t) });

      expect(server.problems).toEqual([]);
      expect(result).toMatchObject({ stop: 'end', turns: 3, text: 'Wrote c.txt; secret.txt was refused.' });
      expect(server.requests).toHaveLength(3);
      const first = resultsOf(result.messages, 0).results;
      expect(first.map((r) => r.status)).toEqual(['ok', 'ok']);
      if (a.servedId !== undefined) expect(first.map((r) => r.id)).toEqual([a.servedId(0, 0), a.servedId(0, 1)]);
      expect(first[0]?.content).toContain('alpha');
      expect(first[1]?.content).toContain('beta');
      const second = resultsOf(result.messages, 1).results;
      expect(second.map((r) => r.status)).toEqual(['ok', 'denied', 'error', 'error']);
      expect(second[1]).toMatchObject({ isError: true, content: 'Denied (GUARD_DENIED): secret.txt is off limits' });
      expect(second[2]?.content).toMatch(/^Error \(INVALID_ARGS\)/);
      expect(second[3]?.content).toMatch(/^Error \(UNKNOWN_TOOL\)/);
      expect(await readFile(join(ws.dir, 'c.txt'), 'utf8')).toBe('alpha beta\n');
      expect(texts.join('')).toBe('I will read both files.Wrote c.txt; secret.txt was refused.');
    });

    it("logs an agent/turn event before each turn's calls", async () => {
      server = await a.start(standardScript());
      await runAgent({ host: ws.host, model: a.model(server, stream), messages: task });
      const events = ws.host.events.list();
      expect(events.slice(0, 3).map((e) => e.type)).toEqual(['agent/turn', 'tool/call', 'tool/call']);
      const turns = events.filter((e) => e.type === 'agent/turn').map((e) => e.data);
      expect(turns).toMatchObject([
        { turn: 1, stop: 'tool-use', model: 'test-model', calls: [{ name: 'read' }, { name: 'read' }] },
        { turn: 2, stop: 'tool-use', calls: [{ name: 'write' }, { name: 'write' }, { name: 'read' }, { name: 'teleport' }] },
        { turn: 3, stop: 'end', text: 'Wrote c.txt; secret.txt was refused.', usage: { outputTokens: 7 } },
      ]);
      const loggedCalls = events.filter((e) => e.type === 'tool/call').map((e) => e.call);
      expect(loggedCalls).toEqual(turns.flatMap((t) => t.calls.map((c) => c.callId)));
    });

    it('finishes a ten-turn task, passing reasoning back on every turn', async () => {
      server = await a.start(tenTurnScript());
      const result = await runAgent({ host: ws.host, model: a.model(server, stream), messages: task });
      expect(server.problems).toEqual([]);
      expect(result).toMatchObject({ stop: 'end', turns: 10, text: 'All nine files written.' });
      expect(await readFile(join(ws.dir, 'f8.txt'), 'utf8')).toBe('8\n');
      expect(result.usage.outputTokens).toBe(70);
    });

    it('reports a cut-off turn and a refusal as stop reasons', async () => {
      server = await a.start([{ text: 'Partial answ', finish: a.finish.maxTokens }]);
      const cut = await runAgent({ host: ws.host, model: a.model(server, stream), messages: task });
      expect(cut).toMatchObject({ stop: 'max-tokens', text: 'Partial answ', turns: 1 });
      await server.close();
      server = await a.start([{ finish: a.finish.refusal }]);
      const refused = await runAgent({ host: ws.host, model: a.model(server, stream), messages: task });
      expect(refused).toMatchObject({ stop: 'refusal', turns: 1 });
      expect(refused.messages).toEqual(task);
    });

    it('stops on abort while the model answers, leaving the history valid', async () => {
      server = await a.start([{ calls: [{ name: 'read', args: '{"file_path":"a.txt"}' }] }, { hang: true }]);
      const controller = new AbortController();
      const running = runAgent({ host: ws.host, model: a.model(server, stream), messages: task, signal: controller.signal });
      await server.received(2);
      controller.abort();
      const result = await running;
      expect(result).toMatchObject({ stop: 'aborted', turns: 1 });
      expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
      expect(server.problems).toEqual([]);
    });

    it('ends with model-error when the API answers with an error', async () => {
      server = await a.start([{ calls: [{ name: 'read', args: '{"file_path":"a.txt"}' }] }]);
      const result = await runAgent({ host: ws.host, model: a.model(server, stream), messages: task });
      expect(result.stop).toBe('model-error');
      expect(result.error?.code).toBe('AGENT_MODEL_FAILED');
      expect(result.error?.message).toContain('no scripted turn 1');
      expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    });
  });
}

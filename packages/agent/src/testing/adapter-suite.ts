import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentMessage, ToolResultsMessage } from '../messages.js';
import type { Model } from '../model.js';
import { runAgent } from '../run-agent.js';
import type { FakeServer, ScriptedFailure, ScriptedTurn } from './fake-http.js';
import { pdfBase64, pngBase64, standardScript, tenTurnScript, type Workspace, workspace } from './scenario.js';

/** What the shared adapter tests need to know about one provider. */
export interface AdapterUnderTest {
  readonly name: string;
  start(turns: readonly ScriptedTurn[]): Promise<FakeServer>;
  /** The adapter under test on the server; `media` turns image or file support off. */
  model(server: FakeServer, stream: boolean, media?: { readonly images?: boolean; readonly files?: boolean }): Model;
  /** The id the server gives call `i` of turn `t`, when it gives one. */
  readonly servedId?: (t: number, i: number) => string;
  /** The provider's words for a cut-off turn and a refusal. */
  readonly finish: { readonly maxTokens: string; readonly refusal: string };
  /** A 429 as the provider sends it, asking to wait `seconds`, and the error type it carries. */
  readonly rateLimited: (seconds: number) => ScriptedFailure;
  readonly rateLimitType: string;
  /** Where the request body holds the tool names and the tool choice, and each choice as the provider spells it. */
  readonly wire: {
    readonly tools: (body: Record<string, unknown>) => unknown;
    readonly choice: (body: Record<string, unknown>) => unknown;
    readonly choices: { readonly none: unknown; readonly required: unknown; readonly tool: (name: string) => unknown };
    /** The media type and base64 data of a request body node that is an image or file in the provider's format. */
    readonly media: (node: Record<string, unknown>) => { mediaType: string; data: string } | undefined;
  };
}

const task: AgentMessage[] = [{ role: 'user', text: 'Combine a.txt and b.txt into c.txt.' }];

/** Every image or file in a request body, in document order. */
function mediaIn(a: AdapterUnderTest, node: unknown): { mediaType: string; data: string }[] {
  if (Array.isArray(node)) return node.flatMap((n) => mediaIn(a, n));
  if (typeof node !== 'object' || node === null) return [];
  const found = a.wire.media(node as Record<string, unknown>);
  return found !== undefined ? [found] : Object.values(node).flatMap((n) => mediaIn(a, n));
}

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

    it('streams the reasoning to onReasoning and keeps it on the assistant message', async () => {
      server = await a.start(standardScript());
      const reasoning: string[] = [];
      const result = await runAgent({
        host: ws.host,
        model: a.model(server, stream),
        messages: task,
        onReasoning: (d) => reasoning.push(d),
      });
      expect(server.problems).toEqual([]);
      expect(reasoning.join('')).toContain('Read a and b first.');
      expect(reasoning.join('')).toContain('Now write c');
      const assistants = result.messages.filter((m) => m.role === 'assistant');
      expect(assistants[0]).toMatchObject({ reasoning: 'Read a and b first.' });
      expect(assistants[2]).not.toHaveProperty('reasoning');
    });

    it("logs an agent/turn event before each turn's calls", async () => {
      server = await a.start(standardScript());
      await runAgent({ host: ws.host, model: a.model(server, stream), messages: task });
      const events = ws.host.events.list();
      expect(events.slice(0, 4).map((e) => e.type)).toEqual(['agent/turn', 'step/start', 'tool/call', 'tool/call']);
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

    it('retries a 429 after its retry-after and a connection reset, once per attempt, logging each', async () => {
      server = await a.start([{ fail: a.rateLimited(0) }, { fail: 'reset' }, { text: 'Back.' }]);
      const result = await runAgent({ host: ws.host, model: a.model(server, stream), messages: task, retry: { initialDelayMs: 1 } });
      expect(result).toMatchObject({ stop: 'end', text: 'Back.', turns: 1 });
      // The SDK's own retries are off: three requests, not three times its retry count.
      expect(server.requests).toHaveLength(3);
      const failures = ws.host.events.list().filter((e) => e.type === 'agent/model-error');
      expect(failures.map((e) => e.data)).toEqual([
        expect.objectContaining({
          turn: 1,
          attempt: 1,
          status: 429,
          type: a.rateLimitType,
          retryAfterMs: 0,
          retryable: true,
          retryInMs: 0,
        }),
        expect.objectContaining({ turn: 1, attempt: 2, retryable: true, retryInMs: expect.any(Number) }),
      ]);
      expect(failures[1]?.data).not.toHaveProperty('status');
      const turn = ws.host.events.list().find((e) => e.type === 'agent/turn');
      expect(turn?.data).toMatchObject({ attempts: 3 });
    });

    it('keeps the status, type and retryability of a failure that is not retried', async () => {
      server = await a.start([{ fail: { status: 400, type: 'invalid_request_error', message: 'bad field' } }]);
      const result = await runAgent({ host: ws.host, model: a.model(server, stream), messages: task, retry: { initialDelayMs: 1 } });
      expect(result.stop).toBe('model-error');
      expect(result.error).toMatchObject({ code: 'AGENT_MODEL_FAILED', status: 400, retryable: false, attempts: 1 });
      expect(result.error?.message).toContain('bad field');
      expect(server.requests).toHaveLength(1);
    });

    it('gives up after maxAttempts with the last failure, or at once when retry-after is beyond maxDelayMs', async () => {
      server = await a.start([{ fail: { status: 503 } }, { fail: { status: 503 } }]);
      const spent = await runAgent({
        host: ws.host,
        model: a.model(server, stream),
        messages: task,
        retry: { maxAttempts: 2, initialDelayMs: 1 },
      });
      expect(spent).toMatchObject({ stop: 'model-error', error: { status: 503, retryable: true, attempts: 2 } });
      expect(server.requests).toHaveLength(2);
      await server.close();
      server = await a.start([{ fail: a.rateLimited(120) }]);
      const later = await runAgent({ host: ws.host, model: a.model(server, stream), messages: task, retry: { maxDelayMs: 60_000 } });
      expect(later).toMatchObject({ stop: 'model-error', error: { status: 429, retryable: true, retryAfterMs: 120_000, attempts: 1 } });
    });

    it('offers only the chosen tools with the tool choice per turn, and denies a call of any other', async () => {
      server = await a.start([
        {
          calls: [
            { name: 'read', args: '{"file_path":"a.txt"}' },
            { name: 'write', args: '{"file_path":"c.txt","content":"x"}' },
          ],
        },
        { text: 'Read it.' },
      ]);
      const result = await runAgent({
        host: ws.host,
        model: a.model(server, stream),
        messages: task,
        tools: ['read', 'write'],
        toolChoice: 'required',
        beforeRequest: ({ turn }) => (turn === 1 ? { tools: ['read'] } : { toolChoice: 'none' }),
      });
      expect(server.problems).toEqual([]);
      expect(result).toMatchObject({ stop: 'end', text: 'Read it.' });
      const [first, second] = server.requests.map((r) => r.body as Record<string, unknown>);
      expect(a.wire.tools(first ?? {})).toEqual(['read']);
      expect(a.wire.choice(first ?? {})).toEqual(a.wire.choices.required);
      expect(a.wire.tools(second ?? {})).toEqual(['read', 'write']);
      expect(a.wire.choice(second ?? {})).toEqual(a.wire.choices.none);
      const results = resultsOf(result.messages, 0).results;
      expect(results.map((r) => r.status)).toEqual(['ok', 'denied']);
      expect(results[1]?.content).toContain('AGENT_TOOL_NOT_OFFERED');
      await expect(readFile(join(ws.dir, 'c.txt'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('maps a choice of one tool to the provider field', async () => {
      server = await a.start([{ text: 'ok' }]);
      await runAgent({ host: ws.host, model: a.model(server, stream), messages: task, toolChoice: { tool: 'grep' } });
      expect(a.wire.choice(server.requests[0]?.body as Record<string, unknown>)).toEqual(a.wire.choices.tool('grep'));
    });

    it("sends the user's image and file and an image a tool read in the provider's format", async () => {
      server = await a.start([{ calls: [{ name: 'read', args: '{"file_path":"dot.png"}' }] }, { text: 'A dot.' }]);
      const asked: AgentMessage[] = [
        {
          role: 'user',
          text: 'What do these show?',
          parts: [
            { type: 'image', mediaType: 'image/png', data: pngBase64 },
            { type: 'file', mediaType: 'application/pdf', data: pdfBase64, name: 'spec.pdf' },
          ],
        },
      ];
      const result = await runAgent({ host: ws.host, model: a.model(server, stream), messages: asked });
      expect(server.problems).toEqual([]);
      expect(result).toMatchObject({ stop: 'end', text: 'A dot.' });
      const read = resultsOf(result.messages, 0).results[0];
      expect(read).toMatchObject({ status: 'ok', parts: [{ type: 'text' }, { type: 'image', mediaType: 'image/png', data: pngBase64 }] });
      expect(read?.content).toContain('[image: image/png');
      expect(mediaIn(a, server.requests[1]?.body)).toEqual([
        { mediaType: 'image/png', data: pngBase64 },
        { mediaType: 'application/pdf', data: pdfBase64 },
        { mediaType: 'image/png', data: pngBase64 },
      ]);
    });

    it('sends a text placeholder, never the data, where the model takes no images or files', async () => {
      server = await a.start([{ calls: [{ name: 'read', args: '{"file_path":"dot.png"}' }] }, { text: 'Cannot see it.' }]);
      const asked: AgentMessage[] = [
        { role: 'user', text: 'Look.', parts: [{ type: 'file', mediaType: 'application/pdf', data: pdfBase64 }] },
      ];
      const model = a.model(server, stream, { images: false, files: false });
      const result = await runAgent({ host: ws.host, model, messages: asked });
      expect(server.problems).toEqual([]);
      expect(result.stop).toBe('end');
      const wire = JSON.stringify(server.requests[1]?.body);
      expect(mediaIn(a, server.requests[1]?.body)).toEqual([]);
      expect(wire).not.toContain(pngBase64);
      expect(wire).toContain('[image: image/png, 70 bytes, not shown]');
      expect(wire).toContain('[file: application/pdf');
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

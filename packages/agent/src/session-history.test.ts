import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import {
  createHost,
  defineTool,
  type Host,
  type LockedJsonlSink,
  loadSessionLog,
  openJsonlSink,
  resumeSession,
  z,
} from '@deepseek-ai/dsh-core';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicRequest } from './adapters/anthropic.js';
import { geminiRequest } from './adapters/gemini.js';
import { chatRequest } from './adapters/openai-chat.js';
import { responsesRequest } from './adapters/openai-responses.js';
import type { AgentMessage, AssistantMessage, ToolResultsMessage } from './messages.js';
import type { AssistantTurn, Model, ModelRequest } from './model.js';
import { checkHistory } from './options.js';
import { runAgent } from './run-agent.js';
import { historyFromSession } from './session-history.js';

const task: AgentMessage[] = [{ role: 'user', text: 'go' }];
const session = 'history-session';

/**
 * A real host: `echo` (parallel), `stamp` (parallel, idempotent, calls
 * `onStamp` as it runs), `wait` (parallel, runs until aborted), a guard that denies
 * echoing "secret", and a post-execute tap that adds context to every `stamp`.
 */
async function historyHost(sink?: LockedJsonlSink, onStamp?: (n: number) => void): Promise<Host> {
  const host = createHost({ session, defaultDecision: 'allow', ...(sink === undefined ? {} : { sink }) });
  host.tools.register(
    defineTool({ name: 'echo', description: 'Echo', input: z.object({ value: z.unknown() }), parallel: true, execute: (a) => a.value }),
  );
  host.tools.register(
    defineTool({
      name: 'stamp',
      description: 'Stamp',
      input: z.object({ n: z.number() }),
      idempotent: true,
      parallel: true,
      execute: (a) => {
        onStamp?.(a.n);
        return { stamped: a.n };
      },
    }),
  );
  host.tools.register(
    defineTool({
      name: 'wait',
      description: 'Waits until cancelled',
      parallel: true,
      input: z.object({}),
      execute: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
        }),
    }),
  );
  host.guards.register({ id: 'test/no-secret', check: ({ args }) => (args.value === 'secret' ? { deny: 'secrets stay put' } : 'abstain') });
  host.hooks.postExecute.tap('test/stamp-note', (state) => (state.call.name === 'stamp' ? { addContext: 'stamped once more' } : undefined));
  return host;
}

/** A model that plays turns in order and records each request. */
function scripted(turns: readonly Partial<AssistantTurn>[]): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  let n = 0;
  const model = async (request: ModelRequest) => {
    requests.push(request);
    const turn = turns[n++] ?? { text: 'done' };
    return { text: '', calls: [], stop: turn.calls?.length ? 'tool-use' : 'end', ...turn } as AssistantTurn;
  };
  return Object.assign(model, { requests });
}

const usage = { inputTokens: 12, outputTokens: 3 };
// Argument text exactly as a model might send it: spacing and a large integer that JSON.parse would round.
const spaced = '{ "value" : 12345678901234567890 }';

/** Turn 1: two parallel calls; turn 2: a denial, malformed JSON, an unknown tool and a stamp; turn 3: the answer. */
const liveScript: Partial<AssistantTurn>[] = [
  {
    text: 'Echoing twice.',
    usage,
    calls: [
      { id: 'c1', name: 'echo', args: spaced },
      { id: 'c2', name: 'echo', args: '{"value":"b"}' },
    ],
  },
  {
    calls: [
      { id: 'c3', name: 'echo', args: '{"value":"secret"}' },
      { id: 'c4', name: 'echo', args: '{"value": "a"' },
      { id: 'c5', name: 'teleport', args: '{}' },
      { id: 'c6', name: 'stamp', args: '{"n":1}' },
    ],
  },
  { text: 'All done.' },
];

/** Turn 1 as above; turn 2: an echo, a call that hangs (the crash comes while it runs) and an idempotent stamp. */
const crashScript: Partial<AssistantTurn>[] = [
  liveScript[0] as Partial<AssistantTurn>,
  {
    text: 'Now the slow part.',
    calls: [
      { id: 'd1', name: 'echo', args: '{"value":"before"}' },
      { id: 'd2', name: 'wait', args: '{}' },
      { id: 'd3', name: 'stamp', args: '{"n":2}' },
    ],
  },
];

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-agent-history-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Runs `crashScript` on a JSONL log and copies the log while `wait` runs and the
 * stamp after it has run but is not yet committed (results commit in the model's
 * order): what a crash at that moment leaves on disk.
 */
async function crashedLog(): Promise<{ path: string; live: readonly AgentMessage[] }> {
  const live = join(dir, 'live.jsonl');
  const path = join(dir, 'crashed.jsonl');
  const sink = await openJsonlSink(live);
  const controller = new AbortController();
  let crashed!: () => void;
  const crash = new Promise<void>((resolve) => {
    crashed = resolve;
  });
  const host = await historyHost(sink, (n) => n === 2 && crashed());
  const run = runAgent({ host, model: scripted(crashScript), messages: task, signal: controller.signal });
  await crash;
  // d1's result commits before the wait's; take the copy only once it is on disk.
  while (!(await loadSessionLog(live)).events.some((e) => e.type === 'tool/result' && e.call === 'd1' && e.data.synthetic !== true)) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await copyFile(live, path);
  controller.abort();
  const result = await run;
  await sink.close?.();
  return { path, live: result.messages };
}

describe('historyFromSession', () => {
  it('rebuilds from the log exactly the history the loop built: parallel calls, a denial, errors and context', async () => {
    const host = await historyHost();
    const result = await runAgent({ host, model: scripted(liveScript), messages: task });
    expect(result.stop).toBe('end');
    const rebuilt = historyFromSession(host.events.list(), { messages: task });
    expect(rebuilt).toEqual(result.messages);
    const results = (rebuilt[4] as ToolResultsMessage).results;
    expect(results.map((r) => r.status)).toEqual(['denied', 'error', 'error', 'ok']);
    expect((rebuilt[4] as ToolResultsMessage).context).toBe('stamped once more');
    expect((rebuilt[1] as AssistantMessage).calls[0]?.args).toBe(spaced);
    expect((rebuilt[2] as ToolResultsMessage).results[0]?.content).toBe('12345678901234567890');
  });

  it('rebuilds the same history from a JSONL log read back with loadSessionLog', async () => {
    const path = join(dir, 'session.jsonl');
    const sink = await openJsonlSink(path);
    const host = await historyHost(sink);
    const result = await runAgent({ host, model: scripted(liveScript), messages: task });
    await sink.close?.();
    const { events } = await loadSessionLog(path);
    expect(historyFromSession(events, { messages: task })).toEqual(result.messages);
  });

  it('answers a crashed step from resumeSession: the results before the crash, TOOL_INTERRUPTED, the re-run and its context', async () => {
    const { path, live } = await crashedLog();
    const { events } = await loadSessionLog(path);
    expect(() => historyFromSession(events, { messages: task })).toThrow(expect.objectContaining({ code: 'AGENT_SESSION_UNANSWERED' }));

    const sink = await openJsonlSink(path);
    const host = await historyHost(sink);
    const resumed = await resumeSession(host, events);
    expect(resumed.resumed.map((r) => [r.id, r.resolution])).toEqual([
      ['d2', 'interrupted'],
      ['d3', 'rerun'],
    ]);
    const rebuilt = historyFromSession(events, { messages: task, resumed });
    // Everything up to the crashed turn's assistant message is what the loop had.
    expect(rebuilt.slice(0, 4)).toEqual(live.slice(0, 4));
    const last = rebuilt[4] as ToolResultsMessage;
    expect(last.results.map((r) => [r.id, r.status, r.content])).toEqual([
      ['d1', 'ok', 'before'],
      ['d2', 'error', expect.stringMatching(/^Error \(TOOL_INTERRUPTED\): outcome unknown/)],
      ['d3', 'ok', '{"stamped":2}'],
    ]);
    expect(last.context).toBe('stamped once more');
    checkHistory(rebuilt);

    // The whole log read back after the resume gives the same history, with no `resumed` needed.
    await sink.close?.();
    expect(historyFromSession((await loadSessionLog(path)).events, { messages: task })).toEqual(rebuilt);
  });

  it('lets a resumed runAgent continue from the rebuilt history, which every adapter turns into a request', async () => {
    const { path } = await crashedLog();
    const { events } = await loadSessionLog(path);
    const sink = await openJsonlSink(path);
    const host = await historyHost(sink);
    const resumed = await resumeSession(host, events);
    const history = historyFromSession(events, { messages: task, resumed });

    const built: unknown[] = [];
    const openai = new OpenAI({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9' });
    const model: Model = async (request) => {
      built.push(
        chatRequest({ client: openai, model: 'm' }, request),
        responsesRequest({ client: openai, model: 'm' }, request),
        anthropicRequest({ client: new Anthropic({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9' }), model: 'm' }, request),
        geminiRequest({ client: {} as never, model: 'm' }, request),
      );
      return { text: 'Checked d2 by hand.', calls: [], stop: 'end' };
    };
    const result = await runAgent({ host, model, messages: history });
    await sink.close?.();
    expect(result.stop).toBe('end');
    expect(result.messages).toEqual([...history, expect.objectContaining({ role: 'assistant', text: 'Checked d2 by hand.' })]);

    const [chat, responses, anthropic, gemini] = built as [
      { messages: { role: string; tool_call_id?: string; tool_calls?: { id: string; function: { arguments: string } }[] }[] },
      { input: { type?: string; call_id?: string; arguments?: string }[] },
      { messages: { role: string; content: unknown }[] },
      { contents: { role: string; parts: unknown[] }[] },
    ];
    // Chat Completions: each call answered by one tool message, in order, the arguments as the model sent them.
    const calls = chat.messages.flatMap((m) => m.tool_calls ?? []);
    expect(calls.map((c) => c.id)).toEqual(['c1', 'c2', 'd1', 'd2', 'd3']);
    expect(calls[0]?.function.arguments).toBe(spaced);
    expect(chat.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['c1', 'c2', 'd1', 'd2', 'd3']);
    // Responses: one function_call_output per call_id.
    const outputs = responses.input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id);
    expect(outputs).toEqual(responses.input.filter((i) => i.type === 'function_call').map((i) => i.call_id));
    expect(outputs).toHaveLength(5);
    expect(anthropic.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(gemini.contents.map((c) => c.role)).toEqual(['user', 'model', 'user', 'model', 'user']);
  });

  it('leaves out the calls of a turn that never reached the pipeline', async () => {
    const host = await historyHost();
    await runAgent({ host, model: scripted(liveScript), messages: task });
    const events = host.events.list();
    // What a crash right after the second turn's first `tool/call` leaves.
    const turn2 = events.findIndex((e) => e.type === 'agent/turn' && (e.data as { turn: number }).turn === 2);
    // The turn, its step's `step/start`, the first `tool/call`.
    const cut = events.slice(0, turn2 + 3);
    expect(cut.at(-1)?.type).toBe('tool/call');
    const resumed = await resumeSession(createHost({ session, defaultDecision: 'allow' }), cut);
    const rebuilt = historyFromSession(cut, { messages: task, resumed });
    expect((rebuilt[3] as AssistantMessage).calls.map((c) => c.id)).toEqual(['c3']);
    expect((rebuilt[4] as ToolResultsMessage).results).toEqual([expect.objectContaining({ id: 'c3', status: 'error' })]);
    checkHistory(rebuilt);
  });

  it('rebuilds only the loop it is asked for: a nested loop is left out of the top-level history', async () => {
    const host = await historyHost();
    const parent = { id: 'outer', token: 'tok' };
    const nested = await runAgent({ host, model: scripted(liveScript.slice(0, 1)), messages: task, parent, maxTurns: 1 });
    const outer = await runAgent({ host, model: scripted(liveScript.slice(0, 1)), messages: task, maxTurns: 1 });
    expect(historyFromSession(host.events.list(), { messages: task })).toEqual(outer.messages);
    expect(historyFromSession(host.events.list(), { parent: 'outer' })).toEqual(nested.messages.slice(1));
  });
});

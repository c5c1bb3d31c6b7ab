import {
  expectWire,
  type FakeReply,
  type FakeServer,
  failureReply,
  type ScriptedTurn,
  type SseFrame,
  startFakeServer,
} from './fake-http.js';

type Wire = Record<string, unknown>;

/**
 * A fake Chat Completions API (`POST /chat/completions`) playing `turns` in
 * order, JSON or SSE as the client asks. Every request is checked: each
 * assistant `tool_calls` id is answered once by a `tool` message before the
 * next turn, served ids come back as served, and served `reasoning_content`
 * comes back unchanged.
 */
export function startOpenAIChatServer(turns: readonly ScriptedTurn[]): Promise<FakeServer> {
  const served: { ids: string[]; reasoning?: string }[] = [];
  return startFakeServer((request, index) => {
    expectWire(request.method === 'POST' && request.path === '/chat/completions', `unexpected ${request.method} ${request.path}`);
    const body = request.body as Wire;
    expectWire(typeof body.model === 'string', 'model must be a string');
    checkHistory(body.messages, served);
    const turn = turns[index];
    expectWire(turn !== undefined, `no scripted turn ${index}: the client asked once too often`);
    turn.check?.(body);
    if (turn.fail !== undefined) return failureReply(turn.fail, errorBody);
    const calls = (turn.calls ?? []).map((c, i) => ({ id: c.id ?? `call_${index}_${i}`, name: c.name, args: c.args }));
    served.push({ ids: calls.map((c) => c.id), ...(turn.reasoning === undefined ? {} : { reasoning: turn.reasoning }) });
    if (turn.hang) return 'hang';
    const finish = turn.finish ?? (calls.length > 0 ? 'tool_calls' : 'stop');
    return body.stream === true ? streamed(body, turn, calls, finish) : whole(body, turn, calls, finish);
  }, errorBody);
}

function checkHistory(messages: unknown, served: readonly { ids: string[]; reasoning?: string }[]): void {
  expectWire(Array.isArray(messages) && messages.length > 0, 'messages must be a non-empty array');
  const list = messages as Wire[];
  let assistant = 0;
  for (let i = 0; i < list.length; i++) {
    const m = list[i] as Wire;
    if (m.role === 'tool') {
      throw new Error(`messages[${i}]: a tool message must answer a tool call of the assistant message before it`);
    }
    if (m.role !== 'assistant') continue;
    const calls = (m.tool_calls ?? []) as Wire[];
    const ids = calls.map((c) => c.id as string);
    const turn = served[assistant];
    assistant += 1;
    if (turn !== undefined) {
      expectWire(JSON.stringify(ids) === JSON.stringify(turn.ids), `messages[${i}]: tool call ids ${ids} are not the served ${turn.ids}`);
      if (turn.reasoning !== undefined) {
        expectWire(m.reasoning_content === turn.reasoning, `messages[${i}]: reasoning_content was not passed back unchanged`);
      }
    }
    const answered: string[] = [];
    while (list[i + 1]?.role === 'tool') {
      i += 1;
      const t = list[i] as Wire;
      expectWire(typeof t.content === 'string' && t.content !== '', `messages[${i}]: a tool message needs content`);
      answered.push(t.tool_call_id as string);
    }
    const missing = ids.filter((id) => answered.filter((a) => a === id).length !== 1);
    expectWire(missing.length === 0 && answered.length === ids.length, `messages[${i}]: tool calls ${missing} lack exactly one result`);
  }
}

function usage(body: Wire): Wire {
  const size = JSON.stringify(body.messages).length;
  return { prompt_tokens: size, completion_tokens: 7, total_tokens: size + 7 };
}

function whole(body: Wire, turn: ScriptedTurn, calls: { id: string; name: string; args: string }[], finish: string): FakeReply {
  const message: Wire = { role: 'assistant', content: turn.text ?? null, refusal: null };
  if (turn.reasoning !== undefined) message.reasoning_content = turn.reasoning;
  if (calls.length > 0)
    message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }));
  return {
    json: {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: 0,
      model: body.model,
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      usage: usage(body),
    },
  };
}

function streamed(body: Wire, turn: ScriptedTurn, calls: { id: string; name: string; args: string }[], finish: string): FakeReply {
  const chunk = (delta: Wire, finishReason: string | null = null): SseFrame => ({
    data: {
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: 0,
      model: body.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    },
  });
  const frames: SseFrame[] = [chunk({ role: 'assistant', content: '' })];
  if (turn.reasoning !== undefined) {
    const half = Math.ceil(turn.reasoning.length / 2);
    frames.push(chunk({ reasoning_content: turn.reasoning.slice(0, half) }), chunk({ reasoning_content: turn.reasoning.slice(half) }));
  }
  for (const word of (turn.text ?? '').match(/\S+\s*/g) ?? []) frames.push(chunk({ content: word }));
  calls.forEach((c, index) => {
    // Arguments arrive in two fragments, as the real API splits them.
    const half = Math.ceil(c.args.length / 2);
    frames.push(
      chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: c.args.slice(0, half) } }] }),
    );
    frames.push(chunk({ tool_calls: [{ index, function: { arguments: c.args.slice(half) } }] }));
  });
  frames.push(chunk({}, finish));
  const options = body.stream_options as Wire | undefined;
  if (options?.include_usage === true) {
    frames.push({
      data: { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [], usage: usage(body) },
    });
  }
  frames.push({ data: '[DONE]' });
  return { sse: frames };
}

/** OpenAI's error body. */
function errorBody(message: string, type = 'invalid_request_error'): unknown {
  return { error: { message, type, param: null, code: null } };
}

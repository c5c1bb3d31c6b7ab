import {
  canonical,
  expectWire,
  type FakeReply,
  type FakeServer,
  failureReply,
  type ScriptedTurn,
  type SseFrame,
  startFakeServer,
} from './fake-http.js';

type Wire = Record<string, unknown>;
type Block = Record<string, unknown>;

/**
 * A fake Messages API (`POST /v1/messages`) playing `turns` in order, JSON
 * or SSE as the client asks. Every request is checked: each `tool_use` is
 * answered once by a `tool_result` at the head of the next user message,
 * served ids come back as served, and a served thinking block (with its
 * signature) comes back unchanged. Arguments that are not a JSON object are
 * served as `{ "malformed": "<text>" }`, since `input` is always an object here.
 */
export function startAnthropicServer(turns: readonly ScriptedTurn[]): Promise<FakeServer> {
  const served: { ids: string[]; thinking?: Block }[] = [];
  // What the last request with a cache breakpoint wrote: the next one reads that much from the cache.
  let cachedPrefix = 0;
  return startFakeServer((request, index) => {
    expectWire(request.method === 'POST' && request.path === '/v1/messages', `unexpected ${request.method} ${request.path}`);
    const body = request.body as Wire;
    expectWire(typeof body.max_tokens === 'number', 'max_tokens is required');
    checkHistory(body.messages, served);
    const turn = turns[index];
    expectWire(turn !== undefined, `no scripted turn ${index}: the client asked once too often`);
    turn.check?.(body);
    if (turn.fail !== undefined) return failureReply(turn.fail, errorBody);
    const content: Block[] = [];
    const thinking = turn.reasoning === undefined ? undefined : { type: 'thinking', thinking: turn.reasoning, signature: `sig-${index}` };
    if (thinking !== undefined) content.push(thinking);
    if (turn.text !== undefined) content.push({ type: 'text', text: turn.text, citations: null });
    (turn.calls ?? []).forEach((c, i) => {
      content.push({ type: 'tool_use', id: c.id ?? `toolu_${index}_${i}`, name: c.name, input: inputOf(c.args) });
    });
    const ids = content.flatMap((b) => (b.type === 'tool_use' ? [b.id as string] : []));
    served.push(thinking === undefined ? { ids } : { ids, thinking });
    if (turn.hang) return 'hang';
    const finish = turn.finish ?? (ids.length > 0 ? 'tool_use' : 'end_turn');
    const usage = cacheUsage(body, cachedPrefix);
    cachedPrefix = JSON.stringify(body).includes('"cache_control"') ? JSON.stringify(body.messages).length : 0;
    const message = {
      id: `msg_${index}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content,
      stop_reason: finish,
      stop_sequence: null,
      usage,
    };
    return body.stream === true ? streamed(message) : { json: message };
  }, errorBody);
}

/**
 * Usage as a prompt cache reports it: a request with `cache_control` reads the
 * previous cached prefix and writes the rest; one without reads and writes nothing.
 */
function cacheUsage(body: Wire, cachedPrefix: number): Wire {
  const size = JSON.stringify(body.messages).length;
  if (!JSON.stringify(body).includes('"cache_control"')) return { input_tokens: size, output_tokens: 7 };
  const read = Math.min(cachedPrefix, size);
  return { input_tokens: 0, cache_read_input_tokens: read, cache_creation_input_tokens: size - read, output_tokens: 7 };
}

function inputOf(args: string): unknown {
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  } catch {
    // Not JSON: served as data the tool's schema will refuse.
  }
  return { malformed: args };
}

function checkHistory(messages: unknown, served: readonly { ids: string[]; thinking?: Block }[]): void {
  expectWire(Array.isArray(messages) && messages.length > 0, 'messages must be a non-empty array');
  const list = messages as Wire[];
  expectWire(list[0]?.role === 'user', 'the first message must be a user message');
  let assistant = 0;
  for (let i = 0; i < list.length; i++) {
    const m = list[i] as Wire;
    const blocks: Block[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : ((m.content ?? []) as Block[]);
    expectWire(blocks.length > 0, `messages.${i}: content must not be empty`);
    if (m.role === 'user') {
      const answers = blocks.filter((b) => b.type === 'tool_result');
      const before = list[i - 1];
      const asked = before?.role === 'assistant' ? ((before.content ?? []) as Block[]).filter((b) => b.type === 'tool_use') : [];
      expectWire(asked.length > 0 || answers.length === 0, `messages.${i}: tool_result blocks with no tool_use before them`);
      if (asked.length === 0) continue;
      // Each tool_use id needs one tool_result, and results come before any other block.
      expectWire(
        blocks.slice(0, answers.length).every((b) => b.type === 'tool_result'),
        `messages.${i}: tool_result blocks must come first`,
      );
      for (const use of asked) {
        const found = answers.filter((a) => a.tool_use_id === use.id);
        expectWire(found.length === 1, `messages.${i}: tool_use ${String(use.id)} needs exactly one tool_result`);
        const body = found[0]?.content;
        const blocksOk =
          Array.isArray(body) && body.length > 0 && body.every((b: Block) => ['text', 'image', 'document'].includes(String(b.type)));
        expectWire(
          (typeof body === 'string' && body !== '') || blocksOk,
          `messages.${i}: a tool_result needs content (text, or text/image/document blocks)`,
        );
      }
      expectWire(answers.length === asked.length, `messages.${i}: a tool_result answers no tool_use`);
      continue;
    }
    const turn = served[assistant];
    assistant += 1;
    const ids = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id);
    if (turn === undefined) continue;
    expectWire(JSON.stringify(ids) === JSON.stringify(turn.ids), `messages.${i}: tool_use ids ${ids} are not the served ${turn.ids}`);
    if (turn.thinking !== undefined) {
      expectWire(canonical(blocks[0]) === canonical(turn.thinking), `messages.${i}: the thinking block did not come back unchanged`);
    }
    expectWire(list[i + 1] !== undefined || ids.length === 0, `messages.${i}: the tool_use blocks have no results`);
  }
}

function streamed(message: Wire): FakeReply {
  const content = message.content as Block[];
  const frames: SseFrame[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          ...message,
          content: [],
          stop_reason: null,
          usage: { ...(message.usage as Wire), output_tokens: 1 },
        },
      },
    },
  ];
  content.forEach((block, index) => {
    const frame = (event: string, data: Wire): void => {
      frames.push({ event, data: { type: event, index, ...data } });
    };
    if (block.type === 'thinking') {
      frame('content_block_start', { content_block: { type: 'thinking', thinking: '', signature: '' } });
      frame('content_block_delta', { delta: { type: 'thinking_delta', thinking: block.thinking } });
      frame('content_block_delta', { delta: { type: 'signature_delta', signature: block.signature } });
    } else if (block.type === 'text') {
      frame('content_block_start', { content_block: { type: 'text', text: '', citations: null } });
      for (const word of String(block.text).match(/\S+\s*/g) ?? [])
        frame('content_block_delta', { delta: { type: 'text_delta', text: word } });
    } else {
      const json = JSON.stringify(block.input);
      const half = Math.ceil(json.length / 2);
      frame('content_block_start', { content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      frame('content_block_delta', { delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } });
      frame('content_block_delta', { delta: { type: 'input_json_delta', partial_json: json.slice(half) } });
    }
    frame('content_block_stop', {});
  });
  frames.push({
    event: 'message_delta',
    data: { type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: 7 } },
  });
  frames.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return { sse: frames };
}

/** Anthropic's error body. */
function errorBody(message: string, type = 'invalid_request_error'): unknown {
  return { type: 'error', error: { type, message } };
}

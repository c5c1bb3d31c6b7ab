/**
 * The OpenAI Chat Completions adapter (also DeepSeek's OpenAI-compatible
 * API): `tool_calls` in, `role: 'tool'` results out, `reasoning_content`
 * passed back on every assistant message that had it.
 *
 * @packageDocumentation
 */
import type { ContentPart, ToolSchema } from '@deepseek-ai/dsh-core';
import { z } from '@deepseek-ai/dsh-core';
import type OpenAI from 'openai';
import { dataUrl, type MediaSupport, mediaSupport, placeholderOf, takes } from '../content.js';
import type { AgentMessage, ToolResultEntry } from '../messages.js';
import type { AssistantTurn, Model, ModelRequest, StopReason, Usage } from '../model.js';
import { checkAdapterOptions, clientWith, commonAdapterOptions } from './check-options.js';
import { inputSchemaOf, strictSchemaOf, systemText } from './schema.js';

type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ChatTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

/** The adapter name in `ProviderData.adapter`. */
export const OPENAI_CHAT_ADAPTER = 'openai-chat';

/** Options of {@link openaiChat}. */
export interface OpenAIChatOptions {
  /** The official `openai` client, configured by you (API key, `baseURL`, retries). */
  readonly client: OpenAI;
  /** The model name (`gpt-5`, `deepseek-v4-flash`, …). */
  readonly model: string;
  /** Use the streaming API; text reaches `onText` per delta. */
  readonly stream?: boolean;
  /** `max_tokens` of the request. */
  readonly maxTokens?: number;
  readonly temperature?: number;
  /** Send `strict: true` with schemas reduced to what strict function calling accepts. */
  readonly strict?: boolean;
  /** `parallel_tool_calls`; the API's default when absent. */
  readonly parallelToolCalls?: boolean;
  /** Whether the model takes images (user parts, an image `read`); a placeholder text is sent instead when `false`. Default `true`. */
  readonly images?: boolean;
  /** Whether the model takes PDF files; a placeholder text is sent instead when `false`. Default `true`. */
  readonly files?: boolean;
  /** More fields for the request body (DeepSeek's `thinking`, `reasoning_effort`, …). */
  readonly extraBody?: Readonly<Record<string, unknown>>;
}

const optionsSchema = z.strictObject({
  client: clientWith('chat.completions.create'),
  ...commonAdapterOptions,
  strict: z.boolean().optional(),
  parallelToolCalls: z.boolean().optional(),
});

/** What the adapter keeps beside the neutral fields: DeepSeek's reasoning, to send back unchanged. */
interface ChatData {
  readonly reasoning_content?: string;
}

/**
 * A {@link Model} on OpenAI Chat Completions. Options are checked here
 * (`INVALID_OPTIONS`). Each request is sent with `maxRetries: 0`: `runAgent`
 * retries (with its events), so the client's own retries would multiply attempts.
 */
export function openaiChatModel(options: OpenAIChatOptions): Model {
  checkAdapterOptions('openaiChatModel', optionsSchema, options);
  const made = { n: 0 };
  return async (request, { signal, onText, onReasoning }) => {
    const body = chatRequest(options, request);
    const requestOptions = { maxRetries: 0, ...(signal === undefined ? {} : { signal }) };
    if (options.stream === true) {
      const stream = await options.client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        requestOptions,
      );
      const acc = new ChunkAccumulator(onText, onReasoning);
      for await (const chunk of stream) acc.add(chunk);
      return turnOf(acc.result(), made);
    }
    const completion = await options.client.chat.completions.create(body, requestOptions);
    const turn = turnOf(messageOfCompletion(completion), made);
    if (turn.reasoning !== undefined && turn.reasoning !== '') onReasoning?.(turn.reasoning);
    if (turn.text !== '') onText?.(turn.text);
    return turn;
  };
}

/** @deprecated The old name of {@link openaiChatModel}. */
export const openaiChat = openaiChatModel;

/** The request body for a neutral request. */
export function chatRequest(options: OpenAIChatOptions, request: ModelRequest): ChatParams {
  const body: ChatParams = {
    ...options.extraBody,
    model: options.model,
    messages: chatMessages(systemText(request.system), request.messages, mediaSupport(options)),
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => chatTool(tool, options.strict === true));
    if (options.parallelToolCalls !== undefined) body.parallel_tool_calls = options.parallelToolCalls;
    const choice = request.toolChoice;
    if (choice !== undefined)
      body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.tool } };
  }
  if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens;
  if (options.temperature !== undefined) body.temperature = options.temperature;
  return body;
}

function chatTool(tool: ToolSchema, strict: boolean): ChatTool {
  const parameters = strict ? strictSchemaOf(tool.inputSchema) : inputSchemaOf(tool);
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters, ...(strict ? { strict: true } : {}) },
  };
}

/** The neutral history as Chat Completions messages. */
export function chatMessages(
  system: string | undefined,
  messages: readonly AgentMessage[],
  support: MediaSupport = allMedia,
): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (system !== undefined) out.push({ role: 'system', content: system });
  for (const m of messages) {
    if (m.role === 'user') {
      out.push({
        role: 'user',
        content: m.parts === undefined ? m.text : [{ type: 'text', text: m.text }, ...m.parts.map((p) => chatPart(p, support))],
      });
    } else if (m.role === 'assistant') {
      const message: ChatMessage & { reasoning_content?: string } = { role: 'assistant', content: m.text === '' ? null : m.text };
      if (m.calls.length > 0) {
        message.tool_calls = m.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }));
      }
      const reasoning = m.provider?.adapter === OPENAI_CHAT_ADAPTER ? (m.provider.data as ChatData).reasoning_content : undefined;
      if (reasoning !== undefined) message.reasoning_content = reasoning;
      out.push(message);
    } else {
      for (const r of m.results) out.push({ role: 'tool', tool_call_id: r.id, content: r.content });
      // A tool message holds text only: the media of the results follow in one user message.
      const media = mediaMessage(m.results, support);
      if (media !== undefined) out.push(media);
      if (m.context !== undefined) out.push({ role: 'user', content: m.context });
    }
  }
  return out;
}

const allMedia: MediaSupport = { images: true, files: true };

type ChatPart = OpenAI.Chat.Completions.ChatCompletionContentPart;

function chatPart(part: ContentPart, support: MediaSupport): ChatPart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (!takes(support, part)) return { type: 'text', text: placeholderOf(part) };
  if (part.type === 'image') return { type: 'image_url', image_url: { url: dataUrl(part) } };
  return { type: 'file', file: { filename: part.name ?? 'document.pdf', file_data: dataUrl(part) } };
}

function mediaMessage(results: readonly ToolResultEntry[], support: MediaSupport): ChatMessage | undefined {
  const content: ChatPart[] = [];
  for (const r of results) {
    const media = (r.parts ?? []).filter((p) => p.type !== 'text' && takes(support, p));
    if (media.length === 0) continue;
    content.push({ type: 'text', text: `The result of tool call ${r.id} (${r.name}) shows:` }, ...media.map((p) => chatPart(p, support)));
  }
  return content.length === 0 ? undefined : { role: 'user', content };
}

/** The parts of an answer, from a whole completion or accumulated chunks. */
interface ChatAnswer {
  content: string;
  refusal: string | undefined;
  reasoning: string | undefined;
  calls: { id: string; name: string; args: string }[];
  finish: string | undefined;
  usage: OpenAI.CompletionUsage | undefined;
  model: string | undefined;
}

function messageOfCompletion(completion: OpenAI.Chat.Completions.ChatCompletion): ChatAnswer {
  const choice = completion.choices?.[0];
  if (choice === undefined) throw new Error('the completion has no choices');
  const message = choice.message as OpenAI.Chat.Completions.ChatCompletionMessage & { reasoning_content?: string | null };
  return {
    content: message.content ?? '',
    refusal: message.refusal ?? undefined,
    reasoning: message.reasoning_content ?? undefined,
    calls: (message.tool_calls ?? []).map((tc) =>
      tc.type === 'custom'
        ? { id: tc.id, name: tc.custom.name, args: tc.custom.input }
        : { id: tc.id, name: tc.function.name, args: tc.function.arguments ?? '' },
    ),
    finish: choice.finish_reason ?? undefined,
    usage: completion.usage,
    model: completion.model,
  };
}

/** Collects a streamed answer: text deltas, tool-call fragments by index, the usage chunk. */
class ChunkAccumulator {
  readonly #answer: ChatAnswer = {
    content: '',
    refusal: undefined,
    reasoning: undefined,
    calls: [],
    finish: undefined,
    usage: undefined,
    model: undefined,
  };
  readonly #onText: ((delta: string) => void) | undefined;
  readonly #onReasoning: ((delta: string) => void) | undefined;

  constructor(onText: ((delta: string) => void) | undefined, onReasoning: ((delta: string) => void) | undefined) {
    this.#onText = onText;
    this.#onReasoning = onReasoning;
  }

  add(chunk: OpenAI.Chat.Completions.ChatCompletionChunk): void {
    const a = this.#answer;
    if (chunk.usage) a.usage = chunk.usage;
    if (chunk.model) a.model = chunk.model;
    const choice = chunk.choices?.[0];
    if (choice === undefined) return;
    const delta = choice.delta as OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null };
    if (delta.content) {
      a.content += delta.content;
      this.#onText?.(delta.content);
    }
    if (delta.reasoning_content) {
      a.reasoning = (a.reasoning ?? '') + delta.reasoning_content;
      this.#onReasoning?.(delta.reasoning_content);
    }
    if (delta.refusal) a.refusal = (a.refusal ?? '') + delta.refusal;
    for (const part of delta.tool_calls ?? []) {
      a.calls[part.index] ??= { id: '', name: '', args: '' };
      const call = a.calls[part.index] as ChatAnswer['calls'][number];
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.args += part.function.arguments;
    }
    if (choice.finish_reason) a.finish = choice.finish_reason;
  }

  result(): ChatAnswer {
    // A fragment index the server skipped leaves a hole; drop it rather than invent a call.
    this.#answer.calls = this.#answer.calls.filter((c) => c !== undefined);
    return this.#answer;
  }
}

const stopOf: Readonly<Record<string, StopReason>> = {
  stop: 'end',
  tool_calls: 'tool-use',
  function_call: 'tool-use',
  length: 'max-tokens',
  content_filter: 'refusal',
};

function turnOf(a: ChatAnswer, made: { n: number }): AssistantTurn {
  const calls = a.calls.map((c) => ({ id: c.id === '' ? `call_made_${made.n++}` : c.id, name: c.name, args: c.args }));
  let stop: StopReason = a.refusal ? 'refusal' : (stopOf[a.finish ?? ''] ?? 'other');
  if (stop === 'end' && calls.length > 0) stop = 'tool-use';
  const turn: AssistantTurn = { text: a.content !== '' ? a.content : (a.refusal ?? ''), calls, stop };
  return {
    ...turn,
    ...(a.finish === undefined ? {} : { providerStop: a.finish }),
    ...(a.refusal === undefined ? {} : { refusal: a.refusal }),
    ...(a.usage === undefined ? {} : { usage: usageOf(a.usage) }),
    ...(a.model === undefined ? {} : { model: a.model }),
    // DeepSeek's thinking mode answers 400 unless reasoning_content comes back on tool-call turns.
    ...(a.reasoning === undefined
      ? {}
      : { reasoning: a.reasoning, provider: { adapter: OPENAI_CHAT_ADAPTER, data: { reasoning_content: a.reasoning } } }),
  };
}

function usageOf(u: OpenAI.CompletionUsage): Usage {
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = { inputTokens: u.prompt_tokens ?? 0, outputTokens: u.completion_tokens ?? 0 };
  const cached = u.prompt_tokens_details?.cached_tokens;
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  if (typeof cached === 'number') usage.cachedInputTokens = cached;
  if (typeof reasoning === 'number') usage.reasoningTokens = reasoning;
  return usage;
}

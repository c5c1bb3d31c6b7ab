/**
 * The Anthropic Messages adapter: `tool_use` blocks in, `tool_result`
 * blocks (with `is_error`) out in one user message, the assistant's content
 * blocks (thinking and its signature included) sent back unchanged.
 *
 * @packageDocumentation
 */

import type Anthropic from '@anthropic-ai/sdk';
import type { ContentPart } from '@deepseek-ai/dsh-core';
import { z } from '@deepseek-ai/dsh-core';
import { type MediaSupport, mediaSupport, placeholderOf, takes } from '../content.js';
import type { AgentMessage, AssistantMessage } from '../messages.js';
import type { AssistantTurn, JsonValue, Model, ModelRequest, StopReason, Usage } from '../model.js';
import { checkAdapterOptions, clientWith, commonAdapterOptions } from './check-options.js';
import { argsObject, inputSchemaOf } from './schema.js';

type Params = Anthropic.MessageCreateParamsNonStreaming;

/** The adapter name in `ProviderData.adapter`. */
export const ANTHROPIC_ADAPTER = 'anthropic';

/** Options of {@link anthropicMessages}. */
export interface AnthropicMessagesOptions {
  /** The official `@anthropic-ai/sdk` client, configured by you. */
  readonly client: Anthropic;
  /** The model name (`claude-sonnet-4-5`, …). */
  readonly model: string;
  /** Use the streaming API; text reaches `onText` per delta. */
  readonly stream?: boolean;
  /** `max_tokens`, which the API requires: 8192 by default. */
  readonly maxTokens?: number;
  /** Whether the model takes images (user parts, an image `read`); a placeholder text is sent instead when `false`. Default `true`. */
  readonly images?: boolean;
  /** Whether the model takes PDF files; a placeholder text is sent instead when `false`. Default `true`. */
  readonly files?: boolean;
  /** More fields for the request body (`thinking`, `temperature`, …). */
  readonly extraBody?: Readonly<Record<string, unknown>>;
  /**
   * Prompt caching: `cache_control` on the last system block, the last tool
   * and the last message's last block, so each turn reads the previous
   * turn's prefix from the cache (`usage.cachedInputTokens`, written:
   * `cacheWriteInputTokens`). On by default; `false` sends no `cache_control`.
   */
  readonly cache?: boolean;
}

const { temperature: _none, ...common } = commonAdapterOptions;
const optionsSchema = z.strictObject({ client: clientWith('messages.create'), ...common, cache: z.boolean().optional() });

/**
 * A {@link Model} on Anthropic Messages. Options are checked here
 * (`INVALID_OPTIONS`). Requests go with `maxRetries: 0`: `runAgent` retries.
 */
export function anthropicModel(options: AnthropicMessagesOptions): Model {
  checkAdapterOptions('anthropicModel', optionsSchema, options);
  return async (request, { signal, onText, onReasoning }) => {
    const body = anthropicRequest(options, request);
    const requestOptions = { maxRetries: 0, ...(signal === undefined ? {} : { signal }) };
    if (options.stream === true) {
      const stream = options.client.messages.stream(body, requestOptions);
      if (onText !== undefined) stream.on('text', (delta) => onText(delta));
      if (onReasoning !== undefined) stream.on('thinking', (delta) => onReasoning(delta));
      return turnOf(await stream.finalMessage());
    }
    const turn = turnOf(await options.client.messages.create(body, requestOptions));
    if (turn.reasoning !== undefined) onReasoning?.(turn.reasoning);
    if (turn.text !== '') onText?.(turn.text);
    return turn;
  };
}

/** @deprecated The old name of {@link anthropicModel}. */
export const anthropicMessages = anthropicModel;

/** The request body for a neutral request. */
export function anthropicRequest(options: AnthropicMessagesOptions, request: ModelRequest): Params {
  const cache = options.cache !== false;
  const messages = anthropicMessagesOf(request.messages, mediaSupport(options));
  const body: Params = {
    ...options.extraBody,
    model: options.model,
    max_tokens: options.maxTokens ?? 8192,
    messages: cache ? withCachedTail(messages) : messages,
  };
  if (request.system !== undefined) {
    const blocks = typeof request.system === 'string' ? [request.system] : request.system;
    body.system = blocks.map((text, i) =>
      cache && i === blocks.length - 1 ? { type: 'text', text, cache_control: ephemeral } : { type: 'text', text },
    );
  }
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool, i) => ({
      name: tool.name,
      description: tool.description,
      input_schema: inputSchemaOf(tool) as Anthropic.Tool.InputSchema,
      ...(cache && i === request.tools.length - 1 ? { cache_control: ephemeral } : {}),
    }));
    const choice = request.toolChoice;
    if (choice !== undefined) body.tool_choice = anthropicToolChoice(choice);
  }
  return body;
}

const ephemeral = { type: 'ephemeral' } as const;

function anthropicToolChoice(choice: NonNullable<ModelRequest['toolChoice']>): Anthropic.ToolChoice {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any' };
  return { type: 'tool', name: choice.tool };
}

/** The messages with a cache breakpoint on the last block of the last user message; provider data is copied, not changed. */
function withCachedTail(messages: Anthropic.MessageParam[]): Anthropic.MessageParam[] {
  const last = messages[messages.length - 1];
  if (last === undefined || last.role !== 'user') return messages;
  const blocks: Anthropic.ContentBlockParam[] =
    typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...last.content];
  const tail = blocks[blocks.length - 1];
  if (tail === undefined || tail.type === 'thinking' || tail.type === 'redacted_thinking') return messages;
  blocks[blocks.length - 1] = { ...tail, cache_control: ephemeral } as Anthropic.ContentBlockParam;
  return [...messages.slice(0, -1), { role: 'user', content: blocks }];
}

/** The neutral history as Messages API messages. */
export function anthropicMessagesOf(
  messages: readonly AgentMessage[],
  support: MediaSupport = { images: true, files: true },
): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      out.push({
        role: 'user',
        content: m.parts === undefined ? m.text : [{ type: 'text', text: m.text }, ...m.parts.map((p) => blockOf(p, support))],
      });
    } else if (m.role === 'assistant') {
      out.push({ role: 'assistant', content: assistantContent(m) });
    } else {
      // Results first, in the model's order; the step's context after them in the same message.
      const content: Anthropic.ContentBlockParam[] = m.results.map((r) => {
        const result = r.parts === undefined ? r.content : r.parts.map((p) => blockOf(p, support));
        return r.isError
          ? { type: 'tool_result', tool_use_id: r.id, content: result, is_error: true }
          : { type: 'tool_result', tool_use_id: r.id, content: result };
      });
      if (m.context !== undefined) content.push({ type: 'text', text: m.context });
      out.push({ role: 'user', content });
    }
  }
  return out;
}

type MediaBlock = Anthropic.TextBlockParam | Anthropic.ImageBlockParam | Anthropic.DocumentBlockParam;

function blockOf(part: ContentPart, support: MediaSupport): MediaBlock {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (!takes(support, part)) return { type: 'text', text: placeholderOf(part) };
  if (part.type === 'image') return { type: 'image', source: { type: 'base64', media_type: part.mediaType, data: part.data } };
  return {
    type: 'document',
    source: { type: 'base64', media_type: 'application/pdf', data: part.data },
    ...(part.name === undefined ? {} : { title: part.name }),
  };
}

function assistantContent(m: AssistantMessage): Anthropic.ContentBlockParam[] {
  if (m.provider?.adapter === ANTHROPIC_ADAPTER) return m.provider.data as unknown as Anthropic.ContentBlockParam[];
  const content: Anthropic.ContentBlockParam[] = [];
  if (m.text !== '') content.push({ type: 'text', text: m.text });
  for (const c of m.calls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: argsObject(c.args) });
  return content;
}

const stopOf: Readonly<Record<string, StopReason>> = {
  end_turn: 'end',
  stop_sequence: 'end',
  tool_use: 'tool-use',
  max_tokens: 'max-tokens',
  model_context_window_exceeded: 'max-tokens',
  refusal: 'refusal',
};

function turnOf(message: Anthropic.Message): AssistantTurn {
  const content = message.content ?? [];
  const text = content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  const thinking = content.flatMap((b) => (b.type === 'thinking' ? [b.thinking] : []));
  // The SDK hands over `input` parsed; it goes back to JSON text for core.
  const calls = content.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, args: JSON.stringify(b.input ?? {}) }] : []));
  const finish = message.stop_reason ?? undefined;
  let stop: StopReason = stopOf[finish ?? ''] ?? 'other';
  if (calls.length > 0 && stop === 'end') stop = 'tool-use';
  const turn: AssistantTurn = {
    text,
    calls,
    stop,
    model: message.model,
    usage: usageOf(message.usage),
    // The blocks go back verbatim: thinking signatures must not change.
    provider: { adapter: ANTHROPIC_ADAPTER, data: content as unknown as JsonValue },
  };
  return {
    ...turn,
    ...(finish === undefined ? {} : { providerStop: finish }),
    ...(thinking.length === 0 ? {} : { reasoning: thinking.join('\n\n') }),
  };
}

function usageOf(u: Anthropic.Usage | undefined): Usage {
  // The API's input_tokens leaves out what the cache served or took: the total counts them, as other providers do.
  const read = u?.cache_read_input_tokens ?? 0;
  const written = u?.cache_creation_input_tokens ?? 0;
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = {
    inputTokens: (u?.input_tokens ?? 0) + read + written,
    outputTokens: u?.output_tokens ?? 0,
  };
  if (typeof u?.cache_read_input_tokens === 'number') usage.cachedInputTokens = u.cache_read_input_tokens;
  if (typeof u?.cache_creation_input_tokens === 'number') usage.cacheWriteInputTokens = u.cache_creation_input_tokens;
  return usage;
}

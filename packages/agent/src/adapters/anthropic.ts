/**
 * The Anthropic Messages adapter: `tool_use` blocks in, `tool_result`
 * blocks (with `is_error`) out in one user message, the assistant's content
 * blocks (thinking and its signature included) sent back unchanged.
 *
 * @packageDocumentation
 */

import type Anthropic from '@anthropic-ai/sdk';
import { z } from '@deepseek-ai/dsh-core';
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
  /** More fields for the request body (`thinking`, `tool_choice`, `temperature`, …). */
  readonly extraBody?: Readonly<Record<string, unknown>>;
}

const { temperature: _none, ...common } = commonAdapterOptions;
const optionsSchema = z.strictObject({ client: clientWith('messages.create'), ...common });

/** A {@link Model} on Anthropic Messages. Options are checked here (`INVALID_OPTIONS`). */
export function anthropicMessages(options: AnthropicMessagesOptions): Model {
  checkAdapterOptions('anthropicMessages', optionsSchema, options);
  return async (request, { signal, onText }) => {
    const body = anthropicRequest(options, request);
    const requestOptions = signal === undefined ? {} : { signal };
    if (options.stream === true) {
      const stream = options.client.messages.stream(body, requestOptions);
      if (onText !== undefined) stream.on('text', (delta) => onText(delta));
      return turnOf(await stream.finalMessage());
    }
    const turn = turnOf(await options.client.messages.create(body, requestOptions));
    if (turn.text !== '') onText?.(turn.text);
    return turn;
  };
}

/** The request body for a neutral request. */
export function anthropicRequest(options: AnthropicMessagesOptions, request: ModelRequest): Params {
  const body: Params = {
    ...options.extraBody,
    model: options.model,
    max_tokens: options.maxTokens ?? 8192,
    messages: anthropicMessagesOf(request.messages),
  };
  if (request.system !== undefined) body.system = request.system;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: inputSchemaOf(tool) as Anthropic.Tool.InputSchema,
    }));
  }
  return body;
}

/** The neutral history as Messages API messages. */
export function anthropicMessagesOf(messages: readonly AgentMessage[]): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', content: m.text });
    } else if (m.role === 'assistant') {
      out.push({ role: 'assistant', content: assistantContent(m) });
    } else {
      // Results first, in the model's order; the step's context after them in the same message.
      const content: Anthropic.ContentBlockParam[] = m.results.map((r) =>
        r.isError
          ? { type: 'tool_result', tool_use_id: r.id, content: r.content, is_error: true }
          : { type: 'tool_result', tool_use_id: r.id, content: r.content },
      );
      if (m.context !== undefined) content.push({ type: 'text', text: m.context });
      out.push({ role: 'user', content });
    }
  }
  return out;
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
  return finish === undefined ? turn : { ...turn, providerStop: finish };
}

function usageOf(u: Anthropic.Usage | undefined): Usage {
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = { inputTokens: u?.input_tokens ?? 0, outputTokens: u?.output_tokens ?? 0 };
  if (typeof u?.cache_read_input_tokens === 'number') usage.cachedInputTokens = u.cache_read_input_tokens;
  return usage;
}

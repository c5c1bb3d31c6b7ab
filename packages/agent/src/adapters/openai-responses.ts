/**
 * The OpenAI Responses adapter: `function_call` output items in,
 * `function_call_output` input items out by `call_id`, and the turn's output
 * items (reasoning items and item ids included) sent back unchanged.
 *
 * @packageDocumentation
 */

import type { ContentPart } from '@deepseek-ai/dsh-core';
import { z } from '@deepseek-ai/dsh-core';
import type OpenAI from 'openai';
import { dataUrl, type MediaSupport, mediaSupport, placeholderOf, takes } from '../content.js';
import type { AgentMessage, ToolResultEntry } from '../messages.js';
import type { AssistantTurn, JsonValue, Model, ModelRequest, StopReason, Usage } from '../model.js';
import { checkAdapterOptions, clientWith, commonAdapterOptions } from './check-options.js';
import { inputSchemaOf, strictSchemaOf, systemText } from './schema.js';

type Params = OpenAI.Responses.ResponseCreateParamsNonStreaming;
type InputItem = OpenAI.Responses.ResponseInputItem;
type Response = OpenAI.Responses.Response;

/** The adapter name in `ProviderData.adapter`. */
export const OPENAI_RESPONSES_ADAPTER = 'openai-responses';

/** Options of {@link openaiResponses}. */
export interface OpenAIResponsesOptions {
  /** The official `openai` client, configured by you. */
  readonly client: OpenAI;
  readonly model: string;
  /** Use the streaming API; text reaches `onText` per delta. */
  readonly stream?: boolean;
  /** `max_output_tokens` of the request. */
  readonly maxTokens?: number;
  readonly temperature?: number;
  /** Send `strict: true` with schemas reduced to what strict function calling accepts. */
  readonly strict?: boolean;
  /** `parallel_tool_calls`; the API's default when absent. */
  readonly parallelToolCalls?: boolean;
  /** `store`: whether the provider keeps the response; the API's default when absent. */
  readonly store?: boolean;
  /** Whether the model takes images (user parts, an image `read`); a placeholder text is sent instead when `false`. Default `true`. */
  readonly images?: boolean;
  /** Whether the model takes PDF files; a placeholder text is sent instead when `false`. Default `true`. */
  readonly files?: boolean;
  /** More fields for the request body (`reasoning`, `include`, …). */
  readonly extraBody?: Readonly<Record<string, unknown>>;
}

const optionsSchema = z.strictObject({
  client: clientWith('responses.create'),
  ...commonAdapterOptions,
  strict: z.boolean().optional(),
  parallelToolCalls: z.boolean().optional(),
  store: z.boolean().optional(),
});

/**
 * A {@link Model} on OpenAI Responses. Options are checked here
 * (`INVALID_OPTIONS`). Requests go with `maxRetries: 0`: `runAgent` retries.
 */
export function openaiResponsesModel(options: OpenAIResponsesOptions): Model {
  checkAdapterOptions('openaiResponsesModel', optionsSchema, options);
  return async (request, { signal, onText, onReasoning }) => {
    const body = responsesRequest(options, request);
    const requestOptions = { maxRetries: 0, ...(signal === undefined ? {} : { signal }) };
    if (options.stream === true) {
      const stream = await options.client.responses.create({ ...body, stream: true }, requestOptions);
      let final: Response | undefined;
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') onText?.(event.delta);
        else if (event.type === 'response.reasoning_summary_text.delta' || event.type === 'response.reasoning_text.delta') {
          onReasoning?.(event.delta);
        } else if (event.type === 'response.completed' || event.type === 'response.incomplete' || event.type === 'response.failed') {
          final = event.response;
        } else if (event.type === 'error') throw new Error(`the stream reported an error: ${event.message}`);
      }
      if (final === undefined) throw new Error('the stream ended without a final response');
      return turnOf(final);
    }
    const turn = turnOf(await options.client.responses.create(body, requestOptions));
    if (turn.reasoning !== undefined) onReasoning?.(turn.reasoning);
    if (turn.text !== '') onText?.(turn.text);
    return turn;
  };
}

/** @deprecated The old name of {@link openaiResponsesModel}. */
export const openaiResponses = openaiResponsesModel;

/** The request body for a neutral request. */
export function responsesRequest(options: OpenAIResponsesOptions, request: ModelRequest): Params {
  const body: Params = { ...options.extraBody, model: options.model, input: responsesInput(request.messages, mediaSupport(options)) };
  const instructions = systemText(request.system);
  if (instructions !== undefined) body.instructions = instructions;
  if (request.tools.length > 0) {
    const strict = options.strict === true;
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: strict ? strictSchemaOf(tool.inputSchema) : inputSchemaOf(tool),
      strict,
    }));
    if (options.parallelToolCalls !== undefined) body.parallel_tool_calls = options.parallelToolCalls;
    const choice = request.toolChoice;
    if (choice !== undefined) body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.tool };
  }
  if (options.maxTokens !== undefined) body.max_output_tokens = options.maxTokens;
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (options.store !== undefined) body.store = options.store;
  return body;
}

/** The neutral history as Responses input items. */
export function responsesInput(messages: readonly AgentMessage[], support: MediaSupport = { images: true, files: true }): InputItem[] {
  const out: InputItem[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      out.push({
        role: 'user',
        content:
          m.parts === undefined
            ? m.text
            : // The message and the function-output part types differ only in nullability: the values fit both.
              ([
                { type: 'input_text', text: m.text },
                ...m.parts.map((p) => inputPart(p, support)),
              ] as OpenAI.Responses.ResponseInputMessageContentList),
      });
    } else if (m.role === 'assistant') {
      if (m.provider?.adapter === OPENAI_RESPONSES_ADAPTER) {
        out.push(...(m.provider.data as unknown as InputItem[]));
        continue;
      }
      if (m.text !== '') out.push({ role: 'assistant', content: m.text });
      for (const c of m.calls) out.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.args });
    } else {
      for (const r of m.results) out.push({ type: 'function_call_output', call_id: r.id, output: outputOf(r, support) });
      if (m.context !== undefined) out.push({ role: 'user', content: m.context });
    }
  }
  return out;
}

type InputPart =
  | OpenAI.Responses.ResponseInputTextContent
  | OpenAI.Responses.ResponseInputImageContent
  | OpenAI.Responses.ResponseInputFileContent;

function inputPart(part: ContentPart, support: MediaSupport): InputPart {
  if (part.type === 'text') return { type: 'input_text', text: part.text };
  if (!takes(support, part)) return { type: 'input_text', text: placeholderOf(part) };
  if (part.type === 'image') return { type: 'input_image', image_url: dataUrl(part), detail: 'auto' };
  return { type: 'input_file', file_data: dataUrl(part), filename: part.name ?? 'document.pdf' };
}

/** A result's output: its text, or its parts (a function output may hold images and files). */
function outputOf(r: ToolResultEntry, support: MediaSupport): string | InputPart[] {
  return r.parts === undefined ? r.content : r.parts.map((p) => inputPart(p, support));
}

function turnOf(response: Response): AssistantTurn {
  if (response.status === 'failed') throw new Error(`the response failed: ${response.error?.message ?? 'no reason given'}`);
  const output = response.output ?? [];
  let text = '';
  let refusal: string | undefined;
  let reasoning: string | undefined;
  const calls: { id: string; name: string; args: string }[] = [];
  for (const item of output) {
    if (item.type === 'message') {
      for (const part of item.content) {
        if (part.type === 'output_text') text += part.text;
        else if (part.type === 'refusal') refusal = (refusal ?? '') + part.refusal;
      }
    } else if (item.type === 'reasoning') {
      // Summaries (and, for open models, the reasoning text) are readable; the item itself goes back as it came.
      const parts = [...(item.summary ?? []), ...(item.content ?? [])].map((p) => p.text);
      if (parts.length > 0) reasoning = (reasoning === undefined ? '' : `${reasoning}\n\n`) + parts.join('\n\n');
    } else if (item.type === 'function_call') {
      calls.push({ id: item.call_id, name: item.name, args: item.arguments ?? '' });
    }
  }
  const incomplete = response.incomplete_details?.reason ?? undefined;
  let stop: StopReason = calls.length > 0 ? 'tool-use' : 'end';
  if (refusal !== undefined || incomplete === 'content_filter') stop = 'refusal';
  else if (incomplete === 'max_output_tokens') stop = 'max-tokens';
  else if (response.status !== 'completed' && response.status !== undefined) stop = 'other';
  const turn: AssistantTurn = {
    text: text !== '' ? text : (refusal ?? ''),
    calls,
    stop,
    providerStop: incomplete ?? response.status ?? 'completed',
    model: response.model,
    // Output items go back as they came: reasoning items and item ids must not change.
    provider: { adapter: OPENAI_RESPONSES_ADAPTER, data: output as unknown as JsonValue },
  };
  return {
    ...turn,
    ...(refusal === undefined ? {} : { refusal }),
    ...(reasoning === undefined ? {} : { reasoning }),
    ...(response.usage === undefined || response.usage === null ? {} : { usage: usageOf(response.usage) }),
  };
}

function usageOf(u: OpenAI.Responses.ResponseUsage): Usage {
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = { inputTokens: u.input_tokens ?? 0, outputTokens: u.output_tokens ?? 0 };
  const cached = u.input_tokens_details?.cached_tokens;
  const reasoning = u.output_tokens_details?.reasoning_tokens;
  if (typeof cached === 'number') usage.cachedInputTokens = cached;
  if (typeof reasoning === 'number') usage.reasoningTokens = reasoning;
  return usage;
}

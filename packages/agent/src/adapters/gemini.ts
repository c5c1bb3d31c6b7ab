/**
 * The Gemini adapter (`@google/genai`): `functionCall` parts in (ids made up
 * when the API gives none), `functionResponse` parts out, and the model's
 * content (thought signatures included) sent back unchanged.
 *
 * @packageDocumentation
 */

import type { ContentPart } from '@deepseek-ai/dsh-core';
import { z } from '@deepseek-ai/dsh-core';
import type {
  Content,
  FunctionCallingConfigMode,
  GenerateContentParameters,
  GenerateContentResponse,
  GoogleGenAI,
  Part,
} from '@google/genai';
import { type MediaSupport, mediaSupport, placeholderOf, takes } from '../content.js';
import type { AgentMessage, AssistantMessage } from '../messages.js';
import type { AssistantTurn, JsonValue, Model, ModelRequest, StopReason, Usage } from '../model.js';
import { checkAdapterOptions, clientWith, commonAdapterOptions } from './check-options.js';
import { argsObject, inputSchemaOf } from './schema.js';

/** The adapter name in `ProviderData.adapter`. */
export const GEMINI_ADAPTER = 'gemini';

/** Options of {@link geminiGenerate}. */
export interface GeminiOptions {
  /** The official `@google/genai` client, configured by you. */
  readonly client: GoogleGenAI;
  /** The model name (`gemini-3-pro-preview`, …). */
  readonly model: string;
  /** Use the streaming API; text reaches `onText` per chunk. */
  readonly stream?: boolean;
  /** `maxOutputTokens` of the request. */
  readonly maxTokens?: number;
  readonly temperature?: number;
  /** Whether the model takes images (user parts, an image `read`); a placeholder text is sent instead when `false`. Default `true`. */
  readonly images?: boolean;
  /** Whether the model takes PDF files; a placeholder text is sent instead when `false`. Default `true`. */
  readonly files?: boolean;
  /** More fields for the request's `config` (`thinkingConfig`, `toolConfig`, …). */
  readonly extraBody?: Readonly<Record<string, unknown>>;
}

const optionsSchema = z.strictObject({ client: clientWith('models.generateContent'), ...commonAdapterOptions });

/** What the adapter keeps: the model's content exactly as it came. */
interface GeminiData {
  readonly content: Content;
}

/**
 * A {@link Model} on Gemini's `generateContent`. Options are checked here
 * (`INVALID_OPTIONS`). Each request sets `httpOptions.retryOptions.attempts`
 * to 1 (over the client's own): `runAgent` retries.
 */
export function geminiModel(options: GeminiOptions): Model {
  checkAdapterOptions('geminiModel', optionsSchema, options);
  const made = { n: 0 };
  return async (request, { signal, onText, onReasoning }) => {
    const params = geminiRequest(options, request);
    params.config = {
      ...params.config,
      httpOptions: { ...(params.config as { httpOptions?: object }).httpOptions, retryOptions: { attempts: 1 } },
      ...(signal === undefined ? {} : { abortSignal: signal }),
    };
    if (options.stream === true) {
      const parts: Part[] = [];
      let last: GenerateContentResponse | undefined;
      for await (const chunk of await options.client.models.generateContentStream(params)) {
        for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
          if (typeof part.text === 'string' && part.text !== '') (part.thought === true ? onReasoning : onText)?.(part.text);
          appendPart(parts, part);
        }
        last = chunk;
      }
      if (last === undefined) throw new Error('the stream ended without a response');
      return turnOf(last, parts, made);
    }
    const response = await options.client.models.generateContent(params);
    const turn = turnOf(response, response.candidates?.[0]?.content?.parts ?? [], made);
    if (turn.reasoning !== undefined) onReasoning?.(turn.reasoning);
    if (turn.text !== '') onText?.(turn.text);
    return turn;
  };
}

/** @deprecated The old name of {@link geminiModel}. */
export const geminiGenerate = geminiModel;

/** Streamed text arrives in pieces; plain pieces join, anything signed or not text stays its own part. */
function appendPart(parts: Part[], part: Part): void {
  const previous = parts[parts.length - 1];
  const plain = (p: Part): boolean =>
    typeof p.text === 'string' && p.thoughtSignature === undefined && Object.keys(p).every((k) => k === 'text' || k === 'thought');
  if (previous !== undefined && plain(previous) && plain(part) && previous.thought === part.thought) {
    parts[parts.length - 1] = { ...previous, text: `${previous.text}${part.text}` };
  } else {
    parts.push(part);
  }
}

/** The request for a neutral request. */
export function geminiRequest(options: GeminiOptions, request: ModelRequest): GenerateContentParameters & { config: object } {
  const config: NonNullable<GenerateContentParameters['config']> = { ...options.extraBody };
  if (request.system !== undefined) {
    const blocks = typeof request.system === 'string' ? [request.system] : request.system;
    config.systemInstruction = { parts: blocks.map((text) => ({ text })) };
  }
  if (request.tools.length > 0) {
    config.tools = [
      {
        functionDeclarations: request.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parametersJsonSchema: inputSchemaOf(tool),
        })),
      },
    ];
    const choice = request.toolChoice;
    if (choice !== undefined) {
      // The enum's values are its names; the SDK is not imported at run time here.
      const mode = (typeof choice === 'object' || choice === 'required' ? 'ANY' : choice.toUpperCase()) as FunctionCallingConfigMode;
      config.toolConfig = {
        functionCallingConfig: typeof choice === 'object' ? { mode, allowedFunctionNames: [choice.tool] } : { mode },
      };
    }
  }
  if (options.maxTokens !== undefined) config.maxOutputTokens = options.maxTokens;
  if (options.temperature !== undefined) config.temperature = options.temperature;
  return { model: options.model, contents: geminiContents(request.messages, mediaSupport(options)), config };
}

/** The neutral history as Gemini contents. */
export function geminiContents(messages: readonly AgentMessage[], support: MediaSupport = { images: true, files: true }): Content[] {
  const out: Content[] = [];
  let asked: AssistantMessage | undefined;
  for (const m of messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', parts: [{ text: m.text }, ...(m.parts ?? []).map((p) => partOf(p, support))] });
    } else if (m.role === 'assistant') {
      asked = m;
      out.push(m.provider?.adapter === GEMINI_ADAPTER ? (m.provider.data as unknown as GeminiData).content : rebuilt(m));
    } else {
      const sentIds = asked === undefined ? [] : providerCallIds(asked);
      const parts: Part[] = m.results.map((r, i) => {
        // An id the adapter made up was never the API's: answer by name and order, as it asked.
        const id = i < sentIds.length ? sentIds[i] : r.id;
        const response = r.isError ? { error: r.content } : { output: r.content };
        return { functionResponse: id === undefined ? { name: r.name, response } : { id, name: r.name, response } };
      });
      // The results' media after every functionResponse: the API matches responses to calls at the head.
      for (const r of m.results) {
        const media = (r.parts ?? []).filter((p) => p.type !== 'text' && takes(support, p));
        if (media.length > 0) parts.push({ text: `The result of ${r.name} (${r.id}) shows:` }, ...media.map((p) => partOf(p, support)));
      }
      if (m.context !== undefined) parts.push({ text: m.context });
      out.push({ role: 'user', parts });
    }
  }
  return out;
}

function partOf(part: ContentPart, support: MediaSupport): Part {
  if (part.type === 'text') return { text: part.text };
  if (!takes(support, part)) return { text: placeholderOf(part) };
  return { inlineData: { mimeType: part.mediaType, data: part.data } };
}

function rebuilt(m: AssistantMessage): Content {
  const parts: Part[] = [];
  if (m.text !== '') parts.push({ text: m.text });
  for (const c of m.calls) parts.push({ functionCall: { id: c.id, name: c.name, args: argsObject(c.args) } });
  return { role: 'model', parts };
}

/** The ids the API itself gave the calls of an assistant message (undefined where it gave none). */
function providerCallIds(m: AssistantMessage): (string | undefined)[] {
  if (m.provider?.adapter !== GEMINI_ADAPTER) return m.calls.map((c) => c.id);
  const parts = (m.provider.data as unknown as GeminiData).content.parts ?? [];
  return parts.flatMap((p) => (p.functionCall === undefined ? [] : [p.functionCall.id]));
}

const refusals = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE']);

function turnOf(response: GenerateContentResponse, parts: readonly Part[], made: { n: number }): AssistantTurn {
  const candidate = response.candidates?.[0];
  const blocked = response.promptFeedback?.blockReason;
  const text = parts.flatMap((p) => (typeof p.text === 'string' && p.thought !== true ? [p.text] : [])).join('');
  const thoughts = parts.flatMap((p) => (typeof p.text === 'string' && p.thought === true && p.text !== '' ? [p.text] : []));
  const calls = parts.flatMap((p) =>
    p.functionCall === undefined
      ? []
      : [
          {
            id: p.functionCall.id ?? `gemini_call_${made.n++}`,
            name: p.functionCall.name ?? '',
            args: JSON.stringify(p.functionCall.args ?? {}),
          },
        ],
  );
  const finish = candidate?.finishReason ?? (blocked === undefined ? undefined : `BLOCKED_${blocked}`);
  let stop: StopReason = calls.length > 0 ? 'tool-use' : 'end';
  if (blocked !== undefined || refusals.has(finish ?? '')) stop = 'refusal';
  else if (finish === 'MAX_TOKENS') stop = 'max-tokens';
  else if (finish !== undefined && finish !== 'STOP') stop = 'other';
  const content: Content = { role: candidate?.content?.role ?? 'model', parts: [...parts] };
  const turn: AssistantTurn = {
    text,
    calls,
    stop,
    provider: { adapter: GEMINI_ADAPTER, data: { content } as unknown as JsonValue },
  };
  return {
    ...turn,
    ...(finish === undefined ? {} : { providerStop: finish }),
    ...(thoughts.length === 0 ? {} : { reasoning: thoughts.join('') }),
    ...(response.modelVersion === undefined ? {} : { model: response.modelVersion }),
    ...(response.usageMetadata === undefined ? {} : { usage: usageOf(response.usageMetadata) }),
  };
}

function usageOf(u: NonNullable<GenerateContentResponse['usageMetadata']>): Usage {
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = {
    inputTokens: u.promptTokenCount ?? 0,
    outputTokens: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0),
  };
  if (typeof u.cachedContentTokenCount === 'number') usage.cachedInputTokens = u.cachedContentTokenCount;
  if (typeof u.thoughtsTokenCount === 'number') usage.reasoningTokens = u.thoughtsTokenCount;
  return usage;
}

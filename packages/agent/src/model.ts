import type { JsonValue, ToolSchema } from '@deepseek-ai/dsh-core';
import type { AgentMessage, ProviderData } from './messages.js';
import type { ToolChoice } from './tool-choice.js';

/**
 * The system prompt: one text, or several blocks in order (adapters that
 * take one text join them with a blank line; Anthropic sends them as blocks,
 * caching up to the last).
 */
export type SystemPrompt = string | readonly string[];

/** One tool call as the model asked for it. `args` is the JSON text, kept as text so core parses it losslessly. */
export interface ModelToolCall {
  /** The provider's call id (made up by the adapter when the API gives none). */
  readonly id: string;
  readonly name: string;
  /** The arguments as JSON text, exactly as the model sent them (possibly malformed). */
  readonly args: string;
}

/**
 * Why a model turn ended.
 * - `end`: the model finished its answer.
 * - `tool-use`: the model asked for tool calls and waits for their results.
 * - `max-tokens`: the turn was cut off at the output token limit.
 * - `refusal`: the model or the provider's safety system refused.
 * - `other`: any other reason the provider gave (see `AssistantTurn.providerStop`).
 */
export type StopReason = 'end' | 'tool-use' | 'max-tokens' | 'refusal' | 'other';

/** Token counts of one turn, as far as the provider reports them. */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens served from the provider's cache, when reported. */
  readonly cachedInputTokens?: number;
  /** Input tokens written to the provider's cache (Anthropic's `cache_creation_input_tokens`), when reported. */
  readonly cacheWriteInputTokens?: number;
  /** Output tokens spent on reasoning, when reported. */
  readonly reasoningTokens?: number;
}

/** What the model answered in one turn. */
export interface AssistantTurn {
  /** The visible text, `''` when there is none. */
  readonly text: string;
  /** The tool calls, in the model's order. */
  readonly calls: readonly ModelToolCall[];
  readonly stop: StopReason;
  /** The provider's own word for the stop (`end_turn`, `length`, `SAFETY`, …). */
  readonly providerStop?: string;
  /** The refusal text, when the provider gives one apart from `text`. */
  readonly refusal?: string;
  readonly usage?: Usage;
  /** The model that answered, as the provider names it. */
  readonly model?: string;
  /** The model's readable reasoning (thinking text, reasoning summaries), when the provider shows it. */
  readonly reasoning?: string;
  /** What the adapter must get back unchanged in the next request (reasoning, signatures, item ids). */
  readonly provider?: ProviderData;
}

/** What a model is asked: the system text, the history in neutral form and the tools it may call. */
export interface ModelRequest {
  readonly system?: SystemPrompt;
  readonly messages: readonly AgentMessage[];
  /** The tools offered this turn. */
  readonly tools: readonly ToolSchema[];
  /** Whether and which tool the model must call; the provider's default (`auto`) when absent. */
  readonly toolChoice?: ToolChoice;
}

/** How one model call runs. */
export interface ModelCallOptions {
  /** Aborts the request; the model rejects. */
  readonly signal?: AbortSignal;
  /**
   * Called with each piece of visible text as it arrives. A streaming
   * adapter calls it per delta; a non-streaming one once with the whole text.
   */
  readonly onText?: (delta: string) => void;
  /** Called with each piece of readable reasoning as it arrives (per delta when streaming), like `onText`. */
  readonly onReasoning?: (delta: string) => void;
}

/**
 * The model seam: a request in, one assistant turn out. Adapters build one
 * from a provider's official client; anything else with this shape works too.
 * It rejects only when the request failed (network, HTTP error, abort), with
 * the SDK's error as it was thrown: `runAgent` reads its status, type and
 * `retry-after` (`describeModelError`) and retries it, so an adapter
 * turns its SDK's own retries off.
 */
export type Model = (request: ModelRequest, options: ModelCallOptions) => Promise<AssistantTurn>;

/** Re-exported for adapters: any JSON value an adapter keeps in `ProviderData`. */
export type { JsonValue };

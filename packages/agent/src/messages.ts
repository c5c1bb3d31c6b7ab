import type { ContentPart, JsonValue } from '@deepseek-ai/dsh-core';
import type { ModelToolCall, StopReason, Usage } from './model.js';

/**
 * Data an adapter must get back unchanged: reasoning content, thought
 * signatures, response item ids. `adapter` names who wrote it; another
 * adapter ignores it and rebuilds the message from the neutral fields.
 */
export interface ProviderData {
  readonly adapter: string;
  readonly data: JsonValue;
}

/** A user message: the task, or a follow-up. */
export interface UserMessage {
  readonly role: 'user';
  readonly text: string;
  /**
   * Images and files sent after the text (core's `ContentPart`s). An
   * adapter whose provider cannot take one sends a text placeholder instead.
   */
  readonly parts?: readonly ContentPart[];
}

/** An assistant turn as it stays in the history. */
export interface AssistantMessage {
  readonly role: 'assistant';
  readonly text: string;
  readonly calls: readonly ModelToolCall[];
  readonly stop?: StopReason;
  readonly usage?: Usage;
  /** The model's readable reasoning for this turn, when it showed any (what `onReasoning` received). */
  readonly reasoning?: string;
  readonly provider?: ProviderData;
}

/** How a call ended, as the model is told: `ok`, or one of the pipeline's refusals or failures. */
export type ToolResultStatus = 'ok' | 'error' | 'denied' | 'blocked';

/** The one answer to one tool call. */
export interface ToolResultEntry {
  /** The provider's call id this answers. */
  readonly id: string;
  readonly name: string;
  readonly status: ToolResultStatus;
  /**
   * The text the model reads: the output, or the error, denial or block with
   * its code. For an output made of parts, their text with a placeholder per
   * image or file: what a provider that takes no media gets.
   */
  readonly content: string;
  /** The output's parts when the tool returned core's `ToolContent` (an image read): adapters send them in their wire format. */
  readonly parts?: readonly ContentPart[];
  /** True unless `status` is `ok` (Anthropic's `is_error`). */
  readonly isError: boolean;
}

/**
 * The results of every call of the assistant message before it, in the
 * model's order, and the step's additional context (core's `context/message`),
 * which adapters place after the results.
 */
export interface ToolResultsMessage {
  readonly role: 'tool';
  readonly results: readonly ToolResultEntry[];
  readonly context?: string;
}

/** One message of the neutral history. */
export type AgentMessage = UserMessage | AssistantMessage | ToolResultsMessage;

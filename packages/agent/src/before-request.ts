import type { ToolSchema } from '@deepseek-ai/dsh-core';
import type { AgentMessage } from './messages.js';
import type { SystemPrompt } from './model.js';
import type { ToolChoice, ToolSelection } from './tool-choice.js';

/** What a `beforeRequest` hook sees: the request about to be sent. */
export interface RequestDraft {
  /** The turn this request is for, from 1. */
  readonly turn: number;
  /** The history as it will be sent. */
  readonly messages: readonly AgentMessage[];
  /** A rough count of the request's input tokens: system, history and tool schemas ({@link estimateTokens}). */
  readonly tokens: number;
  readonly system?: SystemPrompt;
  /** The tools offered, after the run's `tools` selection. */
  readonly tools: readonly ToolSchema[];
  readonly toolChoice?: ToolChoice;
}

/**
 * What a `beforeRequest` hook may change; anything absent stays. A new
 * `messages` replaces the run's history from here on (it is checked like
 * the history passed in: every call answered); `tools` (narrowing the
 * host's tools again) and `toolChoice` apply to this turn only.
 */
export interface RequestChanges {
  readonly messages?: readonly AgentMessage[];
  readonly tools?: ToolSelection;
  readonly toolChoice?: ToolChoice;
}

/**
 * The hook `runAgent` calls before every model request. Returning nothing
 * sends the draft as it is. A hook that throws, or returns changes that
 * are invalid, ends the run with `stop: 'hook-error'` (`AGENT_HOOK_FAILED`).
 */
export type BeforeRequest = (draft: RequestDraft) => RequestChanges | undefined | Promise<RequestChanges | undefined>;

/** Tokens counted for one image or file part: what providers charge for a mid-sized image, not its base64 length. */
export const mediaPartTokens = 1600;

/**
 * A rough token count: four characters of JSON text a token, and a fixed
 * {@link mediaPartTokens} per image or file part. Enough to decide when to
 * compact; the provider's `usage` is the exact count after the fact.
 */
export function estimateTokens(value: unknown): number {
  let media = 0;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'object' && v !== null && ((v as { type?: unknown }).type === 'image' || (v as { type?: unknown }).type === 'file')) {
      if (typeof (v as { data?: unknown }).data === 'string') {
        media += 1;
        return undefined;
      }
    }
    return v;
  });
  return Math.ceil((text?.length ?? 0) / 4) + media * mediaPartTokens;
}

/** Options of {@link compactHistory}. */
export interface CompactHistoryOptions {
  /** Compact when the draft's token estimate is above this. */
  readonly maxTokens: number;
  /** How many of the newest messages are never dropped (default 6). */
  readonly keepLast?: number;
}

/**
 * The default compaction: when the estimate passes `maxTokens`, drop the
 * oldest messages after the first one (the task) until it fits, in whole
 * units (a user message, or an assistant message with the tool results
 * that answer it), so a call is never separated from its results. The newest
 * `keepLast` messages always stay; a history that cannot shrink is sent as it is.
 */
export function compactHistory(options: CompactHistoryOptions): BeforeRequest {
  const keepLast = options.keepLast ?? 6;
  return (draft) => {
    if (draft.tokens <= options.maxTokens || draft.messages.length < 2) return undefined;
    const messages = draft.messages;
    const units = unitsOf(messages);
    // The first unit (the task) and every unit reaching into the newest keepLast messages stay.
    const protectedFrom = Math.max(1, messages.length - keepLast);
    let over = draft.tokens - options.maxTokens;
    let dropTo = 0;
    for (let u = 1; u < units.length && over > 0; u++) {
      const unit = units[u] as { start: number; end: number };
      if (unit.end > protectedFrom) break;
      over -= estimateTokens(messages.slice(unit.start, unit.end));
      dropTo = u;
    }
    if (dropTo === 0) return undefined;
    const first = units[0] as { start: number; end: number };
    const keptFrom = (units[dropTo] as { end: number }).end;
    return { messages: [...messages.slice(first.start, first.end), ...messages.slice(keptFrom)] };
  };
}

/** The history cut into units: `[start, end)` ranges, an assistant message with calls together with its results. */
function unitsOf(messages: readonly AgentMessage[]): { start: number; end: number }[] {
  const units: { start: number; end: number }[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as AgentMessage;
    const answered = m.role === 'assistant' && m.calls.length > 0 && messages[i + 1]?.role === 'tool';
    units.push({ start: i, end: answered ? i + 2 : i + 1 });
    if (answered) i += 1;
  }
  return units;
}

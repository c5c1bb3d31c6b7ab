import { contentPartSchema, type Host, type ParentCall, z } from '@deepseek-ai/dsh-core';
import type { BeforeRequest } from './before-request.js';
import { AgentError, AgentErrorCode } from './errors.js';
import type { AgentMessage } from './messages.js';
import type { Model, SystemPrompt } from './model.js';
import { type RetryOptions, retryOptionsSchema } from './retry.js';
import { type ToolChoice, type ToolSelection, toolChoiceSchema, toolSelectionSchema } from './tool-choice.js';

/** Options of {@link runAgent}. */
export interface RunAgentOptions {
  /** The pipeline host whose tools the model may call; every call runs through `host.runStep`. */
  readonly host: Host;
  /** The model seam, usually from an adapter (`openaiChat`, `anthropicMessages`, …). */
  readonly model: Model;
  /** The history so far, ending with the user's task. It is not changed; the result holds the new history. */
  readonly messages: readonly AgentMessage[];
  /** The system prompt: a text, or several blocks (Anthropic caches up to the last one). */
  readonly system?: SystemPrompt;
  /** The tools offered to the model (names or a filter); every tool of the host by default. A call of any other is denied (`AGENT_TOOL_NOT_OFFERED`). */
  readonly tools?: ToolSelection;
  /** Whether and which tool the model must call (`auto` by default); `beforeRequest` may change it per turn. */
  readonly toolChoice?: ToolChoice;
  /** How failed model requests are retried (429, 5xx, connection resets); `false` for never. See {@link RetryOptions}. */
  readonly retry?: RetryOptions | false;
  /**
   * Called before each model request with the history, its token estimate
   * and the tools offered; may replace the history (compaction: the new one
   * stays, and must keep each call with its results) or change the tools and
   * `toolChoice` for this turn. See `compactHistory` for the default strategy.
   */
  readonly beforeRequest?: BeforeRequest;
  /** The most model turns this run may take (default 50). */
  readonly maxTurns?: number;
  /** Aborts the run: the model request is cancelled, running calls are aborted and still answered. */
  readonly signal?: AbortSignal;
  /**
   * The call this loop runs for (a subagent's tool call): its token is
   * carried by every call, its signal followed, and call ids become
   * `<parent id>:agent:<n>` unless `callIdPrefix` says otherwise.
   */
  readonly parent?: ParentCall;
  /** Logs calls as `<prefix><n>` (n from 0) instead of the provider's ids. */
  readonly callIdPrefix?: string;
  /** Each piece of visible model text as it arrives (per delta with a streaming adapter). */
  readonly onText?: (delta: string) => void;
  /** Each piece of readable model reasoning as it arrives (thinking, reasoning summaries). */
  readonly onReasoning?: (delta: string) => void;
  /** Each message as it joins the history: the assistant turn, then its results. */
  readonly onMessage?: (message: AgentMessage) => void;
}

const callable = (what: string) => z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', `must be a ${what} function`);

/** The neutral history's shape: what `checkHistory` and a `beforeRequest` replacement are checked against. */
export const messageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('user'), text: z.string(), parts: z.array(contentPartSchema).optional() }),
  z.looseObject({
    role: z.literal('assistant'),
    text: z.string(),
    calls: z.array(z.looseObject({ id: z.string().min(1), name: z.string(), args: z.string() })),
  }),
  z.looseObject({
    role: z.literal('tool'),
    results: z.array(
      z.looseObject({
        id: z.string().min(1),
        name: z.string(),
        status: z.enum(['ok', 'error', 'denied', 'blocked']),
        content: z.string(),
        isError: z.boolean(),
        parts: z.array(contentPartSchema).optional(),
      }),
    ),
    context: z.string().optional(),
  }),
]);

const schema = z.strictObject({
  host: z.custom<Host>(
    (v) => typeof v === 'object' && v !== null && typeof (v as Host).runStep === 'function' && typeof (v as Host).tools === 'object',
    'must be a dsh host (createHost)',
  ),
  model: callable('model'),
  messages: z.array(messageSchema).min(1, 'must hold at least the user task'),
  system: z.union([z.string(), z.array(z.string())]).optional(),
  tools: toolSelectionSchema.optional(),
  toolChoice: toolChoiceSchema.optional(),
  retry: retryOptionsSchema.optional(),
  beforeRequest: callable('hook').optional(),
  maxTurns: z.number().int().positive().optional(),
  signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, 'must be an AbortSignal').optional(),
  parent: z
    .object({
      id: z.string().min(1),
      token: z.string().min(1),
      signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, 'must be an AbortSignal').optional(),
    })
    .optional(),
  callIdPrefix: z.string().min(1).optional(),
  onText: callable('callback').optional(),
  onReasoning: callable('callback').optional(),
  onMessage: callable('callback').optional(),
});

/** Validates `runAgent`'s options; throws `INVALID_OPTIONS` naming the field. */
export function checkRunAgentOptions(options: RunAgentOptions): void {
  const parsed = schema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'options';
    throw new AgentError(AgentErrorCode.INVALID_OPTIONS, `runAgent: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  checkHistory(options.messages);
}

/**
 * Every assistant message with calls must be followed by one tool message
 * that answers each call once, and a tool message must answer such a turn:
 * the provider would reject anything else.
 */
export function checkHistory(messages: readonly AgentMessage[]): void {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as AgentMessage;
    if (m.role === 'tool') {
      const before = messages[i - 1];
      if (before?.role !== 'assistant' || before.calls.length === 0) {
        throw invalid(`messages.${i}: tool results must follow an assistant message with tool calls`);
      }
      continue;
    }
    if (m.role !== 'assistant' || m.calls.length === 0) continue;
    const next = messages[i + 1];
    const answered = next?.role === 'tool' ? next.results.map((r) => r.id) : [];
    const asked = m.calls.map((c) => c.id);
    if (answered.length !== asked.length || asked.some((id, k) => answered[k] !== id)) {
      throw invalid(`messages.${i}: every tool call needs exactly one result, in order, in the next message (asked ${asked.join(', ')})`);
    }
  }
}

function invalid(message: string): AgentError {
  return new AgentError(AgentErrorCode.INVALID_HISTORY, `runAgent: ${message}`);
}

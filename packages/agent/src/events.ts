import { DshError, ErrorCode, type Host, z } from '@deepseek-ai/dsh-core';
import type { StopReason } from './model.js';

/** `agent/turn`: one model turn, logged before its tool calls run, so the log reads as the conversation. */
export interface AgentTurnEventData {
  /** The turn's number within its `runAgent`, from 1. */
  readonly turn: number;
  /** The model that answered, when the provider names it. */
  readonly model?: string;
  readonly stop: StopReason;
  readonly providerStop?: string;
  readonly text: string;
  /** The calls the turn asked for: the provider's id, the id the pipeline logs them under, the tool. */
  readonly calls: readonly { readonly id: string; readonly callId: string; readonly name: string }[];
  readonly usage?: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly cachedInputTokens?: number;
    readonly cacheWriteInputTokens?: number;
    readonly reasoningTokens?: number;
  };
  /** How many requests this turn took (more than 1 after retries). */
  readonly attempts?: number;
  /** The parent call's id, for a nested loop (a subagent). */
  readonly parent?: string;
}

/** `agent/model-error`: one failed model request, logged before the retry it may lead to. */
export interface AgentModelErrorEventData {
  /** The turn the request was for, from 1. */
  readonly turn: number;
  /** Which attempt of that turn failed, from 1. */
  readonly attempt: number;
  readonly message: string;
  readonly status?: number;
  readonly type?: string;
  readonly retryAfterMs?: number;
  readonly retryable: boolean;
  /** The wait before the next attempt; absent when this failure ends the run. */
  readonly retryInMs?: number;
  readonly parent?: string;
}

declare module '@deepseek-ai/dsh-core' {
  interface EventDataMap {
    'agent/turn': AgentTurnEventData;
    'agent/model-error': AgentModelErrorEventData;
  }
}

const count = z.number().int().nonnegative();

/** The schema of the `agent/turn` event. */
export const agentTurnEvent = z.object({
  turn: z.number().int().positive(),
  model: z.string().optional(),
  stop: z.enum(['end', 'tool-use', 'max-tokens', 'refusal', 'other']),
  providerStop: z.string().optional(),
  text: z.string(),
  calls: z.array(z.object({ id: z.string(), callId: z.string(), name: z.string() })),
  usage: z
    .object({
      inputTokens: count,
      outputTokens: count,
      cachedInputTokens: count.optional(),
      cacheWriteInputTokens: count.optional(),
      reasoningTokens: count.optional(),
    })
    .optional(),
  attempts: z.number().int().positive().optional(),
  parent: z.string().optional(),
});

/** The schema of the `agent/model-error` event. */
export const agentModelErrorEvent = z.object({
  turn: z.number().int().positive(),
  attempt: z.number().int().positive(),
  message: z.string(),
  status: z.number().int().optional(),
  type: z.string().optional(),
  retryAfterMs: count.optional(),
  retryable: z.boolean(),
  retryInMs: count.optional(),
  parent: z.string().optional(),
});

/** The type name of the event, under this package's prefix. */
export const AGENT_TURN_EVENT = 'agent/turn';
/** The type name of the failed-request event. */
export const AGENT_MODEL_ERROR_EVENT = 'agent/model-error';

const defined = new WeakSet<Host>();

/** Defines `agent/turn` and `agent/model-error` on a host once; a nested loop on the same host finds them defined. */
export function defineAgentEvents(host: Host): void {
  if (defined.has(host)) return;
  for (const [type, schema] of [
    [AGENT_TURN_EVENT, agentTurnEvent],
    [AGENT_MODEL_ERROR_EVENT, agentModelErrorEvent],
  ] as const) {
    try {
      host.events.define(type, schema);
    } catch (error) {
      // Another copy of this package defined it on this host already.
      if (!(DshError.isInstance(error) && error.code === ErrorCode.DUPLICATE_EVENT_TYPE)) throw error;
    }
  }
  defined.add(host);
}

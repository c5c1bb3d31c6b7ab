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
    readonly reasoningTokens?: number;
  };
  /** The parent call's id, for a nested loop (a subagent). */
  readonly parent?: string;
}

declare module '@deepseek-ai/dsh-core' {
  interface EventDataMap {
    'agent/turn': AgentTurnEventData;
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
    .object({ inputTokens: count, outputTokens: count, cachedInputTokens: count.optional(), reasoningTokens: count.optional() })
    .optional(),
  parent: z.string().optional(),
});

/** The type name of the event, under this package's prefix. */
export const AGENT_TURN_EVENT = 'agent/turn';

const defined = new WeakSet<Host>();

/** Defines `agent/turn` on a host once; a nested loop on the same host finds it defined. */
export function defineAgentEvents(host: Host): void {
  if (defined.has(host)) return;
  try {
    host.events.define(AGENT_TURN_EVENT, agentTurnEvent);
  } catch (error) {
    // Another copy of this package defined it on this host already.
    if (!(DshError.isInstance(error) && error.code === ErrorCode.DUPLICATE_EVENT_TYPE)) throw error;
  }
  defined.add(host);
}

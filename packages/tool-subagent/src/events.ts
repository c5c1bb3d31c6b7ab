import type { AgentStop } from '@deepseek-ai/dsh-agent';
import { DshError, ErrorCode, type EventDoc, type Host, z } from '@deepseek-ai/dsh-core';

/** Who a subagent is: the id its calls carry and its type (`CallIdentity.agent`). */
export interface SubagentIdentity {
  readonly id: string;
  readonly type: string;
}

/** `subagent/start`: a `task` call started a subagent; tied to that call. */
export interface SubagentStartEventData {
  readonly agent: SubagentIdentity;
  /** 1 for a subagent of the main agent, 2 for one of its subagents, … */
  readonly depth: number;
  /** The task's short description, as the model gave it. */
  readonly description: string;
  /** The dsh names of the tools it may call, sorted. */
  readonly tools: readonly string[];
  /** Where its definition came from: `code`, `project`, `user`, `built-in`. */
  readonly source: string;
  /** The `model` its definition names, when it names one. */
  readonly model?: string;
}

/** `subagent/end`: the subagent's loop ended; logged before the `task` call's result. */
export interface SubagentEndEventData {
  readonly agent: SubagentIdentity;
  /** How its loop ended (`runAgent`'s stop), or `failed` when the loop could not run. */
  readonly stop: AgentStop | 'failed';
  readonly turns: number;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  /** Its tool calls that passed the tool-list and budget check. */
  readonly calls: number;
  /** What the `task` call answers: `ok` with the final text, or `error` with `code`. */
  readonly outcome: 'ok' | 'error';
  readonly code?: string;
}

declare module '@deepseek-ai/dsh-core' {
  interface EventDataMap {
    'subagent/start': SubagentStartEventData;
    'subagent/end': SubagentEndEventData;
  }
}

const identity = z.object({ id: z.string(), type: z.string() });
const count = z.number().int().nonnegative();

/** The schema of `subagent/start`. */
export const subagentStartEvent = z.object({
  agent: identity,
  depth: z.number().int().positive(),
  description: z.string(),
  tools: z.array(z.string()),
  source: z.string(),
  model: z.string().optional(),
});

/** The schema of `subagent/end`. */
export const subagentEndEvent = z.object({
  agent: identity,
  stop: z.enum(['end', 'max-turns', 'aborted', 'refusal', 'max-tokens', 'empty-turn', 'model-error', 'hook-error', 'failed']),
  turns: count,
  usage: z.object({ inputTokens: count, outputTokens: count }),
  calls: count,
  outcome: z.enum(['ok', 'error']),
  code: z.string().optional(),
});

/** Defines both event types on a host (a second instance of the plugin finds them defined). */
export function defineSubagentEvents(host: Host): void {
  const example = { agent: { id: 'call_1', type: 'reviewer' } };
  define(host, 'subagent/start', subagentStartEvent, {
    meaning: 'A task call started a subagent: its id, type, depth and tools.',
    example: { ...example, depth: 1, description: 'Review the diff', tools: ['glob', 'grep', 'read'], source: 'project' },
  });
  define(host, 'subagent/end', subagentEndEvent, {
    meaning: "A subagent's loop ended: how, after how many turns, tokens and calls, and what the task call answers.",
    example: { ...example, stop: 'end', turns: 3, usage: { inputTokens: 1200, outputTokens: 300 }, calls: 4, outcome: 'ok' },
  });
}

function define(host: Host, type: string, schema: z.ZodType, doc: EventDoc): void {
  try {
    host.events.define(type, schema, doc);
  } catch (error) {
    if (!(DshError.isInstance(error) && error.code === ErrorCode.DUPLICATE_EVENT_TYPE)) throw error;
  }
}

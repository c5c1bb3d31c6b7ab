import { type ApprovalProvider, type ContextMessage, z } from '@deepseek-ai/dsh-core';
import type { DecisionStore } from './decision-store.js';
import { AgentsBridgeError, AgentsErrorCode } from './errors.js';

/** Options of `openaiAgents`. Every one is optional. */
export interface AgentsBridgeOptions {
  /**
   * Where dsh's pending approvals are kept, keyed by `<session>:<call id>`:
   * in memory by default. A run serialised with `state.toString()` and restored
   * in a fresh process resumes its interrupted calls only with a store that
   * outlived the process, such as `fileDecisionStore(dir)`.
   */
  readonly store?: DecisionStore;
  /**
   * Asked for calls that no SDK run made (user code calling `host.runStep`
   * itself on the same host): without it such calls are denied when dsh asks.
   */
  readonly fallbackApproval?: ApprovalProvider;
  /**
   * Receives the context a post-execute tap added for a call (the step's
   * `context/message`, also in the session log). The SDK has no message to
   * carry it between tool results, so it is never appended to the output.
   */
  readonly onContext?: (context: ContextMessage, call: { readonly id: string; readonly name: string }) => void;
}

const fn = (what: string) => z.custom<unknown>((v) => typeof v === 'function', `must be ${what}`);

/** The zod schema of `openaiAgents` options (functions and the store checked by shape). */
export const agentsBridgeOptionsSchema = z.strictObject({
  store: z
    .custom<DecisionStore>(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        typeof (v as DecisionStore).get === 'function' &&
        typeof (v as DecisionStore).set === 'function',
      'must have get and set methods',
    )
    .optional(),
  fallbackApproval: fn('a function').optional(),
  onContext: fn('a function').optional(),
});

/** The zod schema of the options of `bridge.tools(host, options)`. */
export const toolsOptionsSchema = z.strictObject({
  names: z.array(z.string().min(1)).optional(),
});

/** Options of `bridge.tools(host, options)`. */
export interface ToolsOptions {
  /** The dsh tools to offer, by name: every tool of the host (except wrapped SDK tools) by default. */
  readonly names?: readonly string[];
}

/** Validates with `schema`, throwing `INVALID_OPTIONS` that names the field. */
export function parseOptions<T>(schema: z.ZodType, value: unknown, where: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.join('.') : 'options';
    throw new AgentsBridgeError(AgentsErrorCode.INVALID_OPTIONS, `${where}: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data as T;
}

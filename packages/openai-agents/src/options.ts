import { type ApprovalProvider, type ContextMessage, z } from '@deepseek-ai/dsh-core';
import { AgentsApprovals } from './bridge-approvals.js';
import type { DecisionStore } from './decision-store.js';

/** Options of the deprecated `openaiAgents`. Every one is optional. */
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
   * (`openaiAgentsApprovals({ fallback })` in the new shape.)
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

/** The zod schema of the options of `bridge.tools(options)`. */
export const toolsOptionsSchema = z.strictObject({
  include: z.array(z.string().min(1)).optional(),
  exclude: z.array(z.string().min(1)).optional(),
  names: z.array(z.string().min(1)).optional(),
});

/** Options of `bridge.tools(options)`: which of the host's dsh tools to offer the agent. */
export interface ToolsOptions {
  /** The dsh tools to offer, by name: every tool of the host (except wrapped SDK tools) by default. */
  readonly include?: readonly string[];
  /** dsh tools not to offer, by name (applied after `include`). */
  readonly exclude?: readonly string[];
  /** @deprecated Use `include`; the same list. */
  readonly names?: readonly string[];
}

/** Options of `openaiAgentsBridge(host, options)`. Every one is optional. */
export interface OpenAiAgentsBridgeOptions {
  /**
   * The approval half made before the host (`openaiAgentsApprovals()`, its
   * `provider` given to `createHost`): with it, dsh's asks become the run's
   * interruptions. Without it, the host's own provider answers every ask
   * while the SDK waits, and the run never interrupts.
   */
  readonly approvals?: AgentsApprovals;
  /** See {@link AgentsBridgeOptions.store}. */
  readonly store?: DecisionStore;
  /** See {@link AgentsBridgeOptions.onContext}. */
  readonly onContext?: NonNullable<AgentsBridgeOptions['onContext']>;
}

/** The zod schema of `openaiAgentsBridge` options. */
export const openaiAgentsBridgeOptionsSchema = agentsBridgeOptionsSchema.omit({ fallbackApproval: true }).extend({
  approvals: z.instanceof(AgentsApprovals, { message: 'must be made by openaiAgentsApprovals()' }).optional(),
});

export { parseOptions } from './internal/parse-options.js';

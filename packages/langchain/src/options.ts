import { type ApprovalProvider, z } from '@deepseek-ai/dsh-core';
import { LangChainApprovals } from './bridge-approvals.js';

const toolName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be letters, digits, _ or -, at most 64');

/** The zod schema of {@link LangChainBridgeOptions}. */
export const bridgeOptionsSchema = z.strictObject({
  fallback: z.custom<ApprovalProvider>((v) => typeof v === 'function', 'must be a function').optional(),
  parallelTools: z.array(toolName).optional(),
  maxParallel: z.number().int().positive().optional(),
  name: z.string().min(1).optional(),
});

/** Options of the deprecated `langchainBridge(options)` (made before its host). Every one is optional. */
export interface LangChainBridgeOptions {
  /**
   * Answers approvals for calls that no LangGraph run is executing (the same
   * host driven by `host.runStep` directly, say). Without it such a call is
   * denied with `LANGCHAIN_APPROVAL_OUTSIDE_GRAPH`.
   */
  readonly fallback?: ApprovalProvider;
  /** Which LangChain tools (not dsh tools: those say it themselves) may run beside other parallel calls: none by default. */
  readonly parallelTools?: readonly string[];
  /** How many parallel bodies of one AI message may run at once: 10 (core's default). */
  readonly maxParallel?: number;
  /** The middleware's name in the agent (LangChain refuses two of the same name): `dsh`. */
  readonly name?: string;
}

/** The zod schema of {@link DshToolsOptions}. */
export const toolsOptionsSchema = z.strictObject({
  include: z.array(toolName).optional(),
  exclude: z.array(toolName).optional(),
});

/** Options of `bridge.tools(options)`: which of the host's dsh tools to offer the model. */
export interface DshToolsOptions {
  /** The host's tools to offer the model, by name: all of them by default. */
  readonly include?: readonly string[];
  /** Tools not to offer, by name (applied after `include`). */
  readonly exclude?: readonly string[];
}

/** Options of `langchainBridge(host, options)`. Every one is optional. */
export interface LangChainHostBridgeOptions {
  /**
   * The approval half made before the host (`langchainApprovals()`, its
   * `provider` given to `createHost`): with it, dsh's asks become LangGraph
   * interrupts. Without it, the host's own provider answers every ask.
   */
  readonly approvals?: LangChainApprovals;
  /** See {@link LangChainBridgeOptions.parallelTools}. */
  readonly parallelTools?: readonly string[];
  /** See {@link LangChainBridgeOptions.maxParallel}. */
  readonly maxParallel?: number;
  /** See {@link LangChainBridgeOptions.name}. */
  readonly name?: string;
}

/** The zod schema of {@link LangChainHostBridgeOptions}. */
export const hostBridgeOptionsSchema = bridgeOptionsSchema.omit({ fallback: true }).extend({
  approvals: z.instanceof(LangChainApprovals, { message: 'must be made by langchainApprovals()' }).optional(),
});

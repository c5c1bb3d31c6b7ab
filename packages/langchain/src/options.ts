import { type ApprovalProvider, z } from '@deepseek-ai/dsh-core';

const toolName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be letters, digits, _ or -, at most 64');

/** The zod schema of {@link LangChainBridgeOptions}. */
export const bridgeOptionsSchema = z.strictObject({
  fallback: z.custom<ApprovalProvider>((v) => typeof v === 'function', 'must be a function').optional(),
  parallelTools: z.array(toolName).optional(),
  maxParallel: z.number().int().positive().optional(),
  name: z.string().min(1).optional(),
});

/** Options of `langchainBridge`. Every one is optional. */
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
});

/** Options of `bridge.tools(host)`. */
export interface DshToolsOptions {
  /** The host's tools to offer the model, by name: all of them by default. */
  readonly include?: readonly string[];
}

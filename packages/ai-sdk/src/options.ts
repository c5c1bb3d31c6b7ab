import { z } from '@deepseek-ai/dsh-core';
import { AiSdkApprovals } from './approvals.js';
import type { FrameworkTool } from './framework-tools.js';
import { parseOptions } from './internal/parse-options.js';

const toolName = /^[A-Za-z0-9_-]{1,64}$/;

/** The zod schema of {@link DshToolsOptions}. */
export const dshToolsOptionsSchema = z.strictObject({
  approvals: z.instanceof(AiSdkApprovals, { message: 'must be made by aiSdkApprovals()' }).optional(),
  include: z.array(z.string().regex(toolName, 'must be a tool name')).optional(),
  tools: z
    .record(
      z.string().regex(toolName, 'must be letters, digits, _ or -, at most 64'),
      z.custom<FrameworkTool>((v) => typeof v === 'object' && v !== null, 'must be an AI SDK tool'),
    )
    .optional(),
  parallelTools: z.array(z.string().regex(toolName, 'must be a tool name')).optional(),
  maxParallel: z.number().int().positive().optional(),
  holdTimeoutMs: z.number().int().positive().optional(),
});

/** Options of `dshTools`. Every one is optional. */
export interface DshToolsOptions {
  /** The bridge whose `provider` the host asks: with it, dsh's `ask` becomes the SDK's tool approval. Without it the host's own provider answers. */
  readonly approvals?: AiSdkApprovals;
  /** The host's tools to offer the model, by name: all of them by default. */
  readonly include?: readonly string[];
  /** Tools written for the SDK, registered on the host so their calls pass the pipeline too. */
  readonly tools?: Readonly<Record<string, FrameworkTool>>;
  /** Which of `tools` may run beside other parallel calls of a step (reads, fetches): none by default. */
  readonly parallelTools?: readonly string[];
  /** How many parallel bodies of one SDK step may run at once: 10 (core's default). */
  readonly maxParallel?: number;
  /** How long an admitted call waits for the SDK to execute it before it ends `AI_SDK_NOT_EXECUTED`: 120,000 ms. */
  readonly holdTimeoutMs?: number;
}

/** Options of `aiSdkBridge(host, options)`: those of `dshTools` but `include`, which moved to `bridge.tools()`. */
export type AiSdkBridgeOptions = Omit<DshToolsOptions, 'include'>;

/** The zod schema of {@link AiSdkBridgeOptions}. */
export const aiSdkBridgeOptionsSchema = dshToolsOptionsSchema.omit({ include: true });

/** The zod schema of {@link ToolsOptions}. */
export const toolsOptionsSchema = z.strictObject({
  include: z.array(z.string().regex(toolName, 'must be a tool name')).optional(),
  exclude: z.array(z.string().regex(toolName, 'must be a tool name')).optional(),
});

/** Options of `bridge.tools(options)`: which of the host's tools to offer the model. */
export interface ToolsOptions {
  /** The host's tools to offer, by name: all of them (the framework tools included) by default. */
  readonly include?: readonly string[];
  /** Tools not to offer, by name (applied after `include`). */
  readonly exclude?: readonly string[];
}

/** Validates `bridge.tools()` options, throwing `AI_SDK_INVALID_OPTIONS` that names the field. */
export function parseToolsOptions(options: ToolsOptions | undefined): ToolsOptions {
  return parseOptions('tools', toolsOptionsSchema, options) as ToolsOptions;
}

/** Validates `aiSdkBridge` options, throwing `AI_SDK_INVALID_OPTIONS` that names the field. */
export function parseBridgeOptions(options: AiSdkBridgeOptions | undefined): ResolvedDshToolsOptions {
  parseOptions('aiSdkBridge', aiSdkBridgeOptionsSchema, options);
  return parseDshToolsOptions(options);
}

/** Options with defaults filled in. */
export interface ResolvedDshToolsOptions {
  readonly approvals: AiSdkApprovals | undefined;
  readonly include: readonly string[] | undefined;
  readonly tools: Readonly<Record<string, FrameworkTool>>;
  readonly parallelTools: ReadonlySet<string>;
  readonly maxParallel: number;
  readonly holdTimeoutMs: number;
}

/** Validates `dshTools` options, throwing `AI_SDK_INVALID_OPTIONS` that names the field. */
export function parseDshToolsOptions(options: DshToolsOptions | undefined): ResolvedDshToolsOptions {
  const o = parseOptions('dshTools', dshToolsOptionsSchema, options);
  return {
    approvals: o.approvals,
    include: o.include,
    tools: o.tools ?? {},
    parallelTools: new Set(o.parallelTools ?? []),
    maxParallel: o.maxParallel ?? 10,
    holdTimeoutMs: o.holdTimeoutMs ?? 120_000,
  };
}

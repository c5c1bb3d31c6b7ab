import { type FunctionTool, RunContext, tool } from '@openai/agents-core';

/** An SDK function tool whose calls run through the dsh pipeline, whatever context type the run has. */
// biome-ignore lint/suspicious/noExplicitAny: the SDK's own tool list type is FunctionTool<any, any, any>.
export type BridgedTool = FunctionTool<any, any, string>;

/** What the SDK passes a tool's invoke: the function call and the run's signal. */
export interface InvokeDetails {
  readonly toolCall?: { readonly callId: string; readonly name: string; readonly arguments: string };
  readonly signal?: AbortSignal;
}

/** The SDK's type of a JSON Schema tool input: the schemas are passed through as they are. */
interface NonStrictSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties: true;
}

/** What the bridge gives the SDK's `tool()`: where `needsApproval` and `invoke` lead. */
export interface SdkToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: unknown;
  readonly strict: boolean;
  readonly needsApproval: (runContext: RunContext<unknown>, input: unknown, callId: string | undefined) => Promise<boolean>;
  readonly invoke: (runContext: RunContext<unknown>, input: unknown, details: InvokeDetails | undefined) => Promise<string>;
}

/** Builds the SDK function tool with the SDK's own `tool()`, so its invoke wrapper (parsing, errors) stays the SDK's. */
export function sdkFunctionTool(spec: SdkToolSpec): BridgedTool {
  return tool({
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters as NonStrictSchema,
    strict: spec.strict as false,
    needsApproval: (runContext: RunContext<unknown>, input: unknown, callId?: string) => spec.needsApproval(runContext, input, callId),
    execute: (input: unknown, runContext?: RunContext<unknown>, details?: unknown) =>
      spec.invoke(runContext ?? new RunContext(), input, details as InvokeDetails | undefined),
  }) as BridgedTool;
}

/**
 * A plain JSON copy of a dsh tool's JSON Schema. zod's `toJSONSchema` output
 * also carries a hidden `~standard` marker, which agents-core 0.20 takes for a
 * Standard Schema (and then requires strict mode); `$schema` means nothing to the model.
 */
export function plainSchema(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return rest;
}

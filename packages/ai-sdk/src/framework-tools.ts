import { type AnyToolDefinition, type CallIdentity, type ToolContext, z } from '@deepseek-ai/dsh-core';
import { AiSdkError, AiSdkErrorCode } from './errors.js';
import type { SdkCallOptions } from './sdk-types.js';

/**
 * A tool written for the AI SDK (`tool({ ... })` of AI SDK 6 or 7), as the
 * adapter reads it: any SDK tool fits; `dshTools` checks the rest.
 */
export interface FrameworkTool {
  readonly type?: unknown;
  readonly description?: unknown;
  readonly inputSchema?: unknown;
  readonly needsApproval?: unknown;
  readonly execute?: unknown;
  readonly toModelOutput?: unknown;
}

/** The fields of an SDK tool this module calls. */
interface ToolFields {
  readonly type?: unknown;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly needsApproval?: unknown;
  readonly execute?: (input: unknown, options: SdkCallOptions) => unknown;
}

/** Checks that `sdkTool` can run through the pipeline; throws a coded error naming it otherwise. */
export function checkFrameworkTool(name: string, sdkTool: FrameworkTool): void {
  const fields = sdkTool as ToolFields;
  if (fields.type === 'provider' || typeof fields.execute !== 'function') {
    throw new AiSdkError(
      AiSdkErrorCode.TOOL_WITHOUT_EXECUTE,
      `tools.${name}: the tool has no execute (it runs on the client or at the provider), so there is no body for the pipeline to run; pass it to the SDK beside dsh's tools`,
    );
  }
}

/**
 * The dsh tool that runs an SDK tool's own `execute` as its body, so that a
 * tool the integrator wrote for the SDK passes every stage too. Its input
 * schema is the SDK tool's when that is a zod 4 schema; any other schema
 * (`jsonSchema(...)`, zod 3, Standard Schema) is checked by the SDK only,
 * and dsh sees an object.
 */
export function frameworkToolDefinition(
  name: string,
  sdkTool: FrameworkTool,
  options: {
    readonly parallel: boolean;
    readonly sdkOptionsOf: (call: CallIdentity) => SdkCallOptions | undefined;
    /** Why the SDK refused this input, if it did: the only check a schema dsh cannot read has. */
    readonly refusalOf: (input: unknown) => string | undefined;
  },
): AnyToolDefinition {
  const fields = sdkTool as ToolFields;
  const body = fields.execute as NonNullable<ToolFields['execute']>;
  return {
    name,
    description: typeof fields.description === 'string' ? fields.description : `${name} (an AI SDK tool)`,
    input: isZod4(fields.inputSchema) ? fields.inputSchema : sdkCheckedInput(options.refusalOf),
    parallel: options.parallel,
    async execute(args: unknown, ctx: ToolContext) {
      const sdk = options.sdkOptionsOf(ctx.call) ?? {};
      // The signal is made when the tool reads it: an AbortSignal costs more than the rest of a call, and most tools never look.
      const callOptions = {
        ...sdk,
        toolCallId: ctx.call.id,
        messages: sdk.messages ?? [],
        get abortSignal(): AbortSignal {
          return ctx.signal;
        },
      };
      const returned = body.call(sdkTool, args, callOptions);
      const value = await lastValue(returned);
      // A tool that returns nothing answers null: the outcome must be JSON.
      return value === undefined ? null : value;
    },
  };
}

/**
 * The dsh schema of a tool whose own schema only the SDK can check (its check
 * is asynchronous, dsh's is not): any object, except input the SDK refused.
 */
function sdkCheckedInput(refusalOf: (input: unknown) => string | undefined): z.ZodType {
  // Before the object schema, which copies: the refusal is known by the very object the SDK refused.
  return z.preprocess((input, ctx) => {
    const why = refusalOf(input);
    if (why !== undefined) ctx.addIssue({ code: 'custom', message: why });
    return input;
  }, z.looseObject({}));
}

/** Whether `schema` is a zod 4 schema, which dsh checks itself. */
export function isZod4(schema: unknown): schema is z.ZodType {
  return typeof schema === 'object' && schema !== null && '_zod' in schema;
}

/** The value of an `execute` that may be a promise or a stream of preliminary results (the last one counts, as in the SDK). */
async function lastValue(returned: unknown): Promise<unknown> {
  if (typeof returned === 'object' && returned !== null && Symbol.asyncIterator in returned) {
    let last: unknown;
    for await (const value of returned as AsyncIterable<unknown>) last = value;
    return last;
  }
  return await returned;
}

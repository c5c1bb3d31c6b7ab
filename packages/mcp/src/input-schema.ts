import { type JsonValue, z } from '@deepseek-ai/dsh-core';
import { hasExactNumbers, plainView } from './internal/plain-view.js';
import type { JsonSchemaCheck, JsonSchemaCompiler } from './json-schema-validator.js';

/** How a tool's input is checked: zod's import of the JSON Schema, or ajv when zod cannot import it. */
export type InputValidator = 'zod' | 'ajv';

/** The zod input of an MCP tool, and which validator checks it. */
export interface McpInputSchema {
  readonly schema: z.ZodType<Record<string, unknown>>;
  readonly validator: InputValidator;
}

/**
 * Builds the input schema of an MCP tool from the server's JSON Schema.
 *
 * - The model is shown the server's schema itself (carried as zod metadata,
 *   so `host.tools.schemas()` reports it unchanged), not a round trip.
 * - Arguments are checked with `z.fromJSONSchema(schema)`; a schema zod
 *   cannot import (`if`/`then`, `not`, …) is checked by ajv instead. A big
 *   integer that zod's safe-integer bound rejects is judged by ajv, which
 *   follows JSON Schema (an integer is an integer, however large).
 * - The arguments the body gets are the model's, unchanged: no defaults
 *   filled in, no key dropped, no number rounded. The server does the rest.
 *
 * Throws when neither zod nor ajv can use the schema, or it is not an object schema.
 */
export function mcpInputSchema(serverSchema: Readonly<Record<string, unknown>>, compiler: JsonSchemaCompiler): McpInputSchema {
  // Schemas themselves are read as plain numbers (a `maximum` of 1e400 is Infinity, as ajv and zod see it anyway).
  const jsonSchema = plainView(serverSchema) as Readonly<Record<string, unknown>>;
  if (jsonSchema.type !== undefined && jsonSchema.type !== 'object') {
    throw new Error(`the input schema's type is ${JSON.stringify(jsonSchema.type)}, but tool arguments are an object`);
  }
  let ajvCheck: JsonSchemaCheck | undefined;
  const ajv = (): JsonSchemaCheck => {
    ajvCheck ??= compiler.compile(jsonSchema);
    return ajvCheck;
  };
  let imported: z.ZodType | undefined;
  try {
    imported = z.fromJSONSchema(structuredClone(jsonSchema) as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    imported = undefined;
  }
  if (imported === undefined) ajv(); // compile now: a schema nothing can check is refused at registration
  const check = (args: Record<string, unknown>): string[] | undefined => {
    if (imported === undefined) return ajv()(args);
    const parsed = imported.safeParse(plainView(args));
    if (parsed.success) return undefined;
    if (hasExactNumbers(args)) return ajv()(args);
    return parsed.error.issues.slice(0, 5).map((i) => `${i.path.length === 0 ? '(root)' : i.path.map(String).join('.')}: ${i.message}`);
  };
  const schema = z
    .looseObject({})
    .superRefine((args, ctx) => {
      for (const problem of check(args) ?? []) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta(modelSchemaOf(jsonSchema)) as unknown as z.ZodType<Record<string, unknown>>;
  return { schema, validator: imported === undefined ? 'ajv' : 'zod' };
}

/** The server's schema as metadata: `id` would make zod file it under `$defs`, so it is left out. */
function modelSchemaOf(jsonSchema: Readonly<Record<string, unknown>>): Record<string, JsonValue> {
  const { id: _id, ...rest } = structuredClone(jsonSchema) as Record<string, JsonValue>;
  return { type: 'object', ...rest };
}

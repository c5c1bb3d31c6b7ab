import type { ToolSchema } from '@deepseek-ai/dsh-core';

/** A tool's input JSON Schema as a model API takes it: the `$schema` marker dropped, nothing else changed. */
export function inputSchemaOf(tool: ToolSchema): Record<string, unknown> {
  const { $schema: _marker, ...rest } = tool.inputSchema;
  return rest;
}

// Keywords that strict function calling (OpenAI structured outputs, DeepSeek's beta `strict`) refuses.
const unsupported = new Set([
  '$schema',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'patternProperties',
  'propertyNames',
  'default',
  'examples',
]);

/**
 * A JSON Schema reduced to what strict function calling accepts: value
 * constraints dropped (core still checks them on every call) and
 * `additionalProperties: false` on every object. Optional properties stay optional.
 */
export function strictSchemaOf(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return reduce(schema) as Record<string, unknown>;
}

function reduce(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(reduce);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (unsupported.has(key)) continue;
    if (key === 'properties' || key === '$defs' || key === 'definitions') {
      // Keys of these maps are names, not keywords: never drop one.
      out[key] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, reduce(v)]));
    } else {
      out[key] = reduce(value);
    }
  }
  if (out.type === 'object' || 'properties' in out) out.additionalProperties = false;
  return out;
}

/** The arguments object of a call whose JSON text came from another adapter; `{}` when it is not an object. */
export function argsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The system prompt as one text: blocks joined by a blank line. */
export function systemText(system: string | readonly string[] | undefined): string | undefined {
  if (system === undefined) return undefined;
  return typeof system === 'string' ? system : system.join('\n\n');
}

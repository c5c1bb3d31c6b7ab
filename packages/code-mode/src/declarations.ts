/** A tool as the program sees it: its name, what it does, and the JSON Schemas of its input and output. */
export interface CallableTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** When absent, the tool's promise resolves to `unknown`. */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
}

type Schema = Readonly<Record<string, unknown>>;

const MAX_DEPTH = 8;
const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The TypeScript declarations shown to the model for the given tools:
 * `declare const tools: { name(input: {...}): Promise<...> }` with each
 * description as a doc comment, plus the `console` the sandbox provides.
 * Names that are not identifiers are quoted (`tools['read-file'](...)`).
 */
export function toolDeclarations(tools: readonly CallableTool[]): string {
  const members = tools.map((tool) => {
    const input = typeOf(tool.inputSchema, 1);
    const output = tool.outputSchema === undefined ? 'unknown' : typeOf(tool.outputSchema, 1);
    return `${docComment(tool.description, '  ')}  ${propertyName(tool.name)}(input: ${input}): Promise<${output}>;`;
  });
  return [
    '/** The tools this program may call. Each call runs through the same checks as a direct call, one at a time. */',
    `declare const tools: {\n${members.join('\n')}\n};`,
    '/** Output is captured and returned with the result. */',
    'declare const console: { log(...values: unknown[]): void; info(...values: unknown[]): void; warn(...values: unknown[]): void; error(...values: unknown[]): void; debug(...values: unknown[]): void };',
    '/** What a failed tools.x() call rejects with. `status` is "denied", "blocked", "error" or "cancelled". */',
    'interface ToolCallError extends Error { readonly tool: string; readonly status: string; readonly code: string }',
  ].join('\n');
}

function docComment(text: string, indent: string): string {
  const lines = text.trim().replaceAll('*/', '*\\/').split('\n');
  if (lines.length === 1 && lines[0] !== undefined && lines[0].length < 100) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

function propertyName(name: string): string {
  return identifier.test(name) ? name : JSON.stringify(name);
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function literal(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'unknown' : text;
}

function union(parts: readonly string[]): string {
  const unique = [...new Set(parts)];
  if (unique.length === 0) return 'never';
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 1 ? (unique[0] as string) : unique.map((p) => (p.includes(' & ') ? `(${p})` : p)).join(' | ');
}

/** A TypeScript type for a JSON Schema (draft 2020-12, as zod emits it); what it cannot express is `unknown`. */
function typeOf(schema: unknown, depth: number): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (!isSchema(schema) || depth > MAX_DEPTH) return 'unknown';
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (alternatives !== undefined) return union(alternatives.map((s: unknown) => wrapForUnion(typeOf(s, depth))));
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((s: unknown) => typeOf(s, depth)).filter((p: string) => p !== 'unknown');
    return parts.length === 0 ? 'unknown' : parts.map((p: string) => (p.includes(' | ') ? `(${p})` : p)).join(' & ');
  }
  if (Array.isArray(schema.type)) return union(schema.type.map((t: unknown) => typeOf({ ...schema, type: t }, depth)));
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return arrayType(schema, depth);
    case 'object':
      return objectType(schema, depth);
    default:
      return isSchema(schema.properties) ? objectType(schema, depth) : 'unknown';
  }
}

function wrapForUnion(type: string): string {
  return type.includes(' | ') && !type.startsWith('{') ? `(${type})` : type;
}

function arrayType(schema: Schema, depth: number): string {
  if (Array.isArray(schema.prefixItems)) {
    const items = schema.prefixItems.map((s: unknown) => typeOf(s, depth + 1));
    return `[${items.join(', ')}]`;
  }
  const item = typeOf(schema.items, depth + 1);
  return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
}

function objectType(schema: Schema, depth: number): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  const indent = '  '.repeat(depth + 1);
  const lines: string[] = [];
  for (const [key, value] of Object.entries(properties)) {
    const doc = isSchema(value) ? propertyDoc(value) : undefined;
    if (doc !== undefined) lines.push(docComment(doc, indent).trimEnd());
    lines.push(`${indent}${propertyName(key)}${required.has(key) ? '' : '?'}: ${typeOf(value, depth + 1)};`);
  }
  // A record (or a loose object) names the type of its other keys; a plain object lists only its own.
  const extra = schema.additionalProperties;
  if (isSchema(extra) || extra === true) lines.push(`${indent}[key: string]: ${typeOf(extra, depth + 1)};`);
  if (lines.length === 0) return '{}';
  return `{\n${lines.join('\n')}\n${'  '.repeat(depth)}}`;
}

function propertyDoc(schema: Schema): string | undefined {
  const parts: string[] = [];
  if (typeof schema.description === 'string' && schema.description.trim() !== '') parts.push(schema.description.trim());
  if ('default' in schema) parts.push(`@default ${literal(schema.default)}`);
  return parts.length === 0 ? undefined : parts.join('\n');
}

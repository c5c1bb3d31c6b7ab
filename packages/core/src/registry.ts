import { z } from 'zod';
import { DshError, ErrorCode } from './errors.js';
import type { AnyToolDefinition, Dialect } from './tool.js';

/** Names only the registry's reserved path may register. */
export const reservedToolNames = ['run_code'] as const;
/** A reserved tool name. */
export type ReservedToolName = (typeof reservedToolNames)[number];

/** What the model is told about a tool: nothing else leaks (no timeouts, no callbacks). */
export interface ToolSchema {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

const toolName = /^[A-Za-z0-9_-]{1,64}$/;

/** The JSON Schema of a zod input; bigints are integers, as the model sees them. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      if ((ctx.zodSchema as { _zod?: { def?: { type?: string } } })._zod?.def?.type === 'bigint') {
        ctx.jsonSchema.type = 'integer';
      }
    },
  }) as Record<string, unknown>;
}

/** An integer argument that stays exact beyond 2^53 (a `bigint` there). */
export function exactInteger(): z.ZodUnion<[z.ZodNumber, z.ZodBigInt]> {
  return z.union([z.number().int(), z.bigint()]);
}

interface Entry {
  readonly definition: AnyToolDefinition;
  readonly schema: ToolSchema;
}

/** The tools of one host, by name. */
export class ToolRegistry {
  readonly #tools = new Map<string, Entry>();

  /** Registers a tool; refuses a taken or reserved name and a malformed definition. */
  register(definition: AnyToolDefinition): () => void {
    if ((reservedToolNames as readonly string[]).includes(definition?.name)) {
      throw new DshError(
        ErrorCode.RESERVED_TOOL_NAME,
        `"${definition.name}" is reserved; only the registry's reserved path (host.tools.registerReserved) may register it`,
      );
    }
    return this.#add(definition);
  }

  /** Registers a reserved tool (`run_code`), once per host. */
  registerReserved(name: ReservedToolName, definition: AnyToolDefinition): () => void {
    if (!(reservedToolNames as readonly string[]).includes(name) || definition?.name !== name) {
      throw new DshError(ErrorCode.RESERVED_TOOL_NAME, `"${String(name)}" is not a reserved tool name, or the definition has another name`);
    }
    return this.#add(definition);
  }

  #add(definition: AnyToolDefinition): () => void {
    const problem = definitionProblem(definition);
    if (problem !== undefined) throw new DshError(ErrorCode.INVALID_TOOL_DEFINITION, problem);
    if (this.#tools.has(definition.name)) {
      throw new DshError(ErrorCode.DUPLICATE_TOOL, `a tool named "${definition.name}" is already registered`);
    }
    const inputSchema = jsonSchemaOf(definition.input);
    if (inputSchema.type !== 'object') {
      throw new DshError(
        ErrorCode.INVALID_TOOL_DEFINITION,
        `tool "${definition.name}": input must be an object schema (z.object), as models send an object`,
      );
    }
    const entry: Entry = {
      definition: Object.freeze({ ...definition }),
      schema: Object.freeze({ name: definition.name, description: definition.description, inputSchema: Object.freeze(inputSchema) }),
    };
    this.#tools.set(definition.name, entry);
    return () => {
      if (this.#tools.get(definition.name) === entry) this.#tools.delete(definition.name);
    };
  }

  /** The tool registered under `name`, if any. */
  get(name: string): AnyToolDefinition | undefined {
    return this.#tools.get(name)?.definition;
  }

  /** Every registered tool, in registration order. */
  list(): AnyToolDefinition[] {
    return [...this.#tools.values()].map((e) => e.definition);
  }

  /** Name, description and input JSON Schema per tool, for the model. */
  schemas(): ToolSchema[] {
    return [...this.#tools.values()].filter((e) => e.definition.internal !== true).map((e) => e.schema);
  }

  /** The tool known as `externalName` in `dialect` (Claude Code's `Bash`, say), with its mapping. */
  findExternal(dialect: Dialect, externalName: string): AnyToolDefinition | undefined {
    for (const { definition } of this.#tools.values()) {
      if (definition.external?.[dialect]?.name === externalName) return definition;
    }
    return undefined;
  }
}

function definitionProblem(d: AnyToolDefinition): string | undefined {
  if (typeof d !== 'object' || d === null) return 'a tool definition must be an object';
  if (typeof d.name !== 'string' || !toolName.test(d.name)) {
    return `tool name ${JSON.stringify(d.name)} must be 1-64 letters, digits, "_" or "-"`;
  }
  if (typeof d.description !== 'string' || d.description.trim() === '') return `tool "${d.name}": description is required`;
  if (typeof (d.input as { safeParse?: unknown })?.safeParse !== 'function') return `tool "${d.name}": input must be a zod schema`;
  if (d.output !== undefined && typeof (d.output as { safeParse?: unknown }).safeParse !== 'function')
    return `tool "${d.name}": output must be a zod schema`;
  if (typeof d.execute !== 'function') return `tool "${d.name}": execute must be a function`;
  if (d.resolvePaths !== undefined && typeof d.resolvePaths !== 'function') return `tool "${d.name}": resolvePaths must be a function`;
  if (d.timeoutMs !== undefined && !(Number.isFinite(d.timeoutMs) && d.timeoutMs > 0)) {
    return `tool "${d.name}": timeoutMs must be a positive number`;
  }
  return undefined;
}

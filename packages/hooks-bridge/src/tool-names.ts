import type { AnyToolDefinition, Args, Dialect, ExternalName } from '@deepseek-ai/dsh-core';

/** External names an integrator supplies for tools that do not declare their own. */
export type ExternalOverrides = Readonly<Record<string, Readonly<Partial<Record<Dialect, ExternalName>>>>>;

/** A call as a dialect names it: its tool name and `tool_input`. */
export interface ExternalView {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/**
 * The mapping a tool declares for `dialect` (its `external` field), or the
 * integrator's override. Without one, the tool's own name and arguments pass
 * through unchanged: that is how `mcp__server__tool` names reach hooks.
 */
export function mappingOf(tool: AnyToolDefinition, dialect: Dialect, overrides: ExternalOverrides): ExternalName | undefined {
  return overrides[tool.name]?.[dialect] ?? tool.external?.[dialect];
}

/** Our arguments as `dialect` sees them. */
export function toExternal(tool: AnyToolDefinition, dialect: Dialect, args: Args, overrides: ExternalOverrides): ExternalView {
  const mapping = mappingOf(tool, dialect, overrides);
  if (mapping === undefined) return { name: tool.name, input: { ...args } };
  return { name: mapping.name, input: mapping.toExternal(args) };
}

/** A dialect's input (a hook's rewrite) as our arguments. */
export function fromExternal(
  tool: AnyToolDefinition,
  dialect: Dialect,
  input: Readonly<Record<string, unknown>>,
  overrides: ExternalOverrides,
): Args {
  const mapping = mappingOf(tool, dialect, overrides);
  return mapping === undefined ? { ...input } : mapping.fromExternal(input);
}

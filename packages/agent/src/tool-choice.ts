import type { ToolSchema } from '@deepseek-ai/dsh-core';
import { z } from '@deepseek-ai/dsh-core';

/**
 * Whether and which tool the model must call this turn, mapped by each
 * adapter to its provider's field (`tool_choice`, Gemini's `functionCallingConfig`).
 * - `auto`: the model decides (the providers' default).
 * - `none`: no tool call; the tools are still sent, so a history with calls stays valid.
 * - `required`: at least one call, of any offered tool.
 * - `{ tool }`: a call of that tool, which must be offered.
 */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly tool: string };

/**
 * Which of the host's tools the model is offered: a list of tool names (each
 * must be registered), or a filter over the host's tool schemas.
 */
export type ToolSelection = readonly string[] | ((tool: ToolSchema) => boolean);

/** The schemas of `toolChoice` and `tools`, for option checks. */
export const toolChoiceSchema = z.union([z.enum(['auto', 'none', 'required']), z.strictObject({ tool: z.string().min(1) })]);
export const toolSelectionSchema = z.union([
  z.array(z.string().min(1)),
  z.custom<(tool: ToolSchema) => boolean>((v) => typeof v === 'function', 'must be a list of tool names or a filter function'),
]);

/**
 * The tools offered: every schema of the host, narrowed by `selection`.
 * Throws a message naming what is wrong (an unregistered name, a choice of a
 * tool not offered); the caller wraps it in its error code.
 */
export function offeredTools(
  all: readonly ToolSchema[],
  selection: ToolSelection | undefined,
  choice: ToolChoice | undefined,
): ToolSchema[] {
  let offered: ToolSchema[];
  if (selection === undefined) offered = [...all];
  else if (typeof selection === 'function') offered = all.filter((tool) => selection(tool) === true);
  else {
    const known = new Set(all.map((t) => t.name));
    const missing = selection.filter((name) => !known.has(name));
    if (missing.length > 0) throw new Error(`tools: no tool named ${missing.map((n) => `"${n}"`).join(', ')} is registered`);
    const wanted = new Set(selection);
    offered = all.filter((t) => wanted.has(t.name));
  }
  if (typeof choice === 'object' && !offered.some((t) => t.name === choice.tool)) {
    throw new Error(`toolChoice: "${choice.tool}" is not among the tools offered (${offered.map((t) => t.name).join(', ') || 'none'})`);
  }
  if (choice === 'required' && offered.length === 0) throw new Error('toolChoice: "required" with no tool offered');
  return offered;
}

/** The names a call may use this turn under a choice: none under `none`, one under `{ tool }`. */
export function callableNames(offered: readonly ToolSchema[], choice: ToolChoice | undefined): ReadonlySet<string> {
  if (choice === 'none') return new Set();
  if (typeof choice === 'object') return new Set([choice.tool]);
  return new Set(offered.map((t) => t.name));
}

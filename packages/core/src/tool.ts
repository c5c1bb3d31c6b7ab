import type { z } from 'zod';
import type { SessionAnchors } from './anchors.js';
import type { EventData, EventType } from './events.js';
import type { GateData, GateType, GateVerdict } from './gates.js';
import type { JsonValue } from './json.js';
import type { CallIdentity, Outcome } from './outcome.js';

/** A card for the UI: plain data, rendered however the host likes. */
export interface Card {
  readonly title: string;
  readonly summary?: string;
  readonly body?: string;
  /** How `body` is meant to be shown; `text` when absent. */
  readonly format?: 'text' | 'diff' | 'code' | 'markdown';
}

/**
 * Turns a call into cards. `presentCall` runs before validation, so it sees
 * the arguments as the model sent them (parsed, not checked);
 * `presentResult` runs only for calls whose arguments passed the schema
 * (others get the generic card). Either may throw: the host falls back to a
 * generic card and the call goes on.
 */
export interface ToolPresenter<Args = unknown> {
  presentCall?(args: Readonly<Record<string, unknown>>): Card;
  presentResult?(args: Args, outcome: Outcome): Card;
}

/**
 * How a tool appears in another agent's vocabulary (Claude Code's `Bash`
 * with `command`, Gemini's `run_shell_command`, …). Written once, next to
 * the tool, and read by hook bridges, permission rules and transcript replay.
 */
export interface ExternalName {
  /** The tool's name in that dialect. */
  readonly name: string;
  /** Our arguments as that dialect's `tool_input`. */
  toExternal(args: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /** That dialect's input (a rewrite from a hook, a recorded call) as our arguments. */
  fromExternal(input: Readonly<Record<string, unknown>>): Record<string, unknown>;
}

/** The dialects whose tool vocabulary core knows by name; others may be added. */
export type Dialect = 'claude' | 'gemini' | 'copilot' | 'codex' | (string & {});

/** A call a tool makes to another tool, through the whole pipeline. */
export interface SubCall {
  readonly id: string;
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>> | string;
}

/** What a tool body gets besides its arguments. */
export interface ToolContext {
  readonly call: CallIdentity;
  readonly session: string;
  /** Aborted on timeout or cancellation: the body must stop, and stop what it started. */
  readonly signal: AbortSignal;
  /** When a tap outside (a timeout policy) will abort the call, on the `performance.now()` clock; `undefined` if none will. */
  readonly deadline: number | undefined;
  /** Appends a tool-owned event (a registered type) to the session log. */
  emit<T extends EventType>(type: T, data: EventData<T>): Promise<void>;
  /** Live progress for the UI (a chunk of output, a percentage). Not logged. */
  progress(update: JsonValue): void;
  /** Raises a vetoable gate event; resolves with whether every handler let it pass. */
  gate<T extends GateType>(type: T, data: GateData<T>): Promise<GateVerdict>;
  /** Runs another call through the whole pipeline, carrying this call's token. */
  readonly tools: { execute(call: SubCall): Promise<Outcome> };
}

/**
 * A tool: a name, a description and a zod input schema for the model, and
 * the body that runs once every policy stage has let the call through.
 * Throw a `ToolError` for an expected failure with its own code.
 */
export interface ToolDefinition<Input extends z.ZodType = z.ZodType, Output = unknown> {
  /** Letters, digits, `_` and `-`, at most 64 characters. */
  readonly name: string;
  readonly description: string;
  readonly input: Input;
  /** When given, the body's value must pass it, or the call fails with `INVALID_TOOL_OUTPUT`. */
  readonly output?: z.ZodType<Output>;
  execute(args: z.output<Input>, ctx: ToolContext): Output | Promise<Output>;
  readonly present?: ToolPresenter<z.output<Input>>;
  /** Bodies of parallel tools may overlap within a step (reads, searches); others run alone. */
  readonly parallel?: boolean;
  /** The tool's own deadline, read by a timeout policy. Core does not enforce it. */
  readonly timeoutMs?: number;
  /** Safe to run twice with the same arguments; a retry policy reads it. */
  readonly idempotent?: boolean;
  /**
   * Called only by other tools, through `ctx.tools.execute` (a question a plugin puts through the
   * pipeline, say): left out of `schemas()`, and a call the model makes to it directly (a call with
   * no parent) is `UNKNOWN_TOOL`, as for a tool that does not exist.
   */
  readonly internal?: boolean;
  /** This tool's names and argument mapping in other agents' vocabularies. */
  readonly external?: Readonly<Partial<Record<Dialect, ExternalName>>>;
  /**
   * For a tool that takes file paths: returns the arguments with each path
   * made absolute and resolved exactly as the body will open it (against the
   * session's `anchors` or the tool's own working directory, `~` expanded,
   * symlinks followed). Core calls it once after validation, before
   * `tools/pre-execute`, and again on arguments a tap rewrites (before they
   * are validated again, so it must only touch string fields it knows);
   * taps, approval, guards and the body all see its result. Synchronous.
   * Return the very object given when nothing changes. A throw fails the
   * call with `PATH_RESOLUTION_FAILED`.
   */
  resolvePaths?(args: Readonly<Record<string, unknown>>, anchors: SessionAnchors): Readonly<Record<string, unknown>>;
}

/** A tool definition as the registry holds it, whatever its input type. */
export type AnyToolDefinition = ToolDefinition<z.ZodType, unknown>;

/** Declares a tool with its argument types inferred from the zod schema. */
export function defineTool<Input extends z.ZodType, Output = unknown>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  return definition;
}

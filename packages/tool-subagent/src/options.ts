import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Model } from '@deepseek-ai/dsh-agent';
import { DshError, ErrorCode, z } from '@deepseek-ai/dsh-core';

/** A subagent type given in code: the fields of a `.claude/agents/*.md` file, with the system prompt as `prompt`. */
export interface SubagentDefinitionInput {
  readonly name: string;
  readonly description: string;
  /** Tool names (dsh or Claude Code), a list or one comma-separated string; absent: every tool the caller may call. */
  readonly tools?: readonly string[] | string;
  readonly disallowedTools?: readonly string[] | string;
  /** A key of `models`; absent or `inherit`: `model`. */
  readonly model?: string;
  /** The system prompt. */
  readonly prompt?: string;
}

/** Options of `toolSubagent`. Only `model` is required. */
export interface ToolSubagentOptions {
  /** The model seam subagents run on (an adapter from `@deepseek-ai/dsh-agent`, or any `Model`). */
  readonly model: Model;
  /** Models a definition may name in its `model` field (`haiku: anthropicMessages({ … })`). */
  readonly models?: Readonly<Record<string, Model>>;
  /** The project whose `.claude/agents/` is read. `process.cwd()` by default. */
  readonly projectDir?: string;
  /** The home whose `.claude/agents/` is read. `os.homedir()` by default; tests pass a temporary one. */
  readonly homeDir?: string;
  /** Read `~/.claude/agents/`: `true` by default. */
  readonly userAgents?: boolean;
  /** Definitions given in code: they take precedence over files. */
  readonly agents?: readonly SubagentDefinitionInput[];
  /** How deep subagents may nest: 1 (a subagent cannot start another) by default. */
  readonly maxDepth?: number;
  /** Model turns one subagent may take: 25. */
  readonly maxTurns?: number;
  /** Tool calls one top-level `task` may make, its nested subagents' included: 200. */
  readonly maxToolCalls?: number;
  /** Largest definition file read: 256 KiB. */
  readonly maxDefinitionBytes?: number;
  /** The tool's name: `task` by default. */
  readonly name?: string;
  /** The system prompt of the built-in `general-purpose` type (used when a call names no type). */
  readonly generalPurposePrompt?: string;
}

const positive = z.number().int().positive();
const callable = z.custom<Model>((v) => typeof v === 'function', 'must be a Model function');
const toolNames = z.union([z.string(), z.array(z.string())]);

/** The zod schema of `toolSubagent` options. */
export const toolSubagentOptionsSchema = z.strictObject({
  model: callable,
  models: z.record(z.string().min(1), callable).optional(),
  projectDir: z.string().min(1).optional(),
  homeDir: z.string().min(1).optional(),
  userAgents: z.boolean().optional(),
  agents: z
    .array(
      z.looseObject({
        name: z.string(),
        description: z.string(),
        tools: toolNames.optional(),
        disallowedTools: toolNames.optional(),
        model: z.string().optional(),
        prompt: z.string().optional(),
      }),
    )
    .optional(),
  maxDepth: positive.optional(),
  maxTurns: positive.optional(),
  maxToolCalls: positive.optional(),
  maxDefinitionBytes: positive.optional(),
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
  generalPurposePrompt: z.string().optional(),
});

/** Options with every default filled in. */
export interface ResolvedOptions {
  readonly model: Model;
  readonly models: Readonly<Record<string, Model>>;
  readonly roots: readonly { readonly path: string; readonly source: string }[];
  readonly agents: readonly Readonly<Record<string, unknown>>[];
  readonly maxDepth: number;
  readonly maxTurns: number;
  readonly maxToolCalls: number;
  readonly maxDefinitionBytes: number;
  readonly name: string;
  readonly generalPurposePrompt: string;
}

const defaultPrompt =
  'You are a subagent: an agent given one task by another agent. Use the tools you have to complete it, ' +
  'then answer with a concise report of what you found or did. Your final message is all the other agent will see.';

/** Validates options (`INVALID_OPTIONS` naming the field) and fills in defaults. */
export function resolveOptions(options: ToolSubagentOptions): ResolvedOptions {
  const parsed = toolSubagentOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.map(String).join('.') : 'options';
    throw new DshError(ErrorCode.INVALID_OPTIONS, `toolSubagent: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  const o = parsed.data;
  const project = resolve(o.projectDir ?? process.cwd());
  const home = resolve(o.homeDir ?? homedir());
  return {
    model: options.model,
    models: options.models ?? {},
    // Claude Code's order: a project's agents override the user's.
    roots: [
      { path: join(project, '.claude', 'agents'), source: 'project' },
      ...(o.userAgents === false ? [] : [{ path: join(home, '.claude', 'agents'), source: 'user' }]),
    ],
    agents: (options.agents ?? []) as unknown as readonly Readonly<Record<string, unknown>>[],
    maxDepth: o.maxDepth ?? 1,
    maxTurns: o.maxTurns ?? 25,
    maxToolCalls: o.maxToolCalls ?? 200,
    maxDefinitionBytes: o.maxDefinitionBytes ?? 256 * 1024,
    name: o.name ?? 'task',
    generalPurposePrompt: o.generalPurposePrompt ?? defaultPrompt,
  };
}

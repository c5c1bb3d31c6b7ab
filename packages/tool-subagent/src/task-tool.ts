import { type AgentResult, type Model, runAgent } from '@deepseek-ai/dsh-agent';
import { defineTool, ErrorCode, type Host, messageOf, type ToolContext, ToolError, z } from '@deepseek-ai/dsh-core';
import type { SubagentCatalog } from './catalog.js';
import type { SubagentDefinition } from './definition.js';
import { SubagentErrorCode, subagentError } from './errors.js';
import type { SubagentEndEventData } from './events.js';
import { taskExternal } from './external.js';
import type { ResolvedOptions } from './options.js';
import { type ActiveRun, type ActiveRuns, CallBudget } from './runs.js';
import { allowedTools } from './tool-set.js';

/** The `task` tool's arguments: Claude Code's `Agent` input. */
export const taskInput = z.strictObject({
  description: z.string().min(1).describe('A short (3-5 word) description of the task'),
  prompt: z.string().min(1).describe('The task for the subagent: everything it needs to know, as it sees nothing else'),
  subagent_type: z.string().min(1).optional().describe('The type of subagent to use; "general-purpose" when absent'),
});

/** What the tool body needs from the plugin. */
export interface TaskToolDeps {
  readonly host: Host;
  readonly options: ResolvedOptions;
  readonly catalog: SubagentCatalog;
  readonly runs: ActiveRuns;
  /** The name of the type used when a call names none. */
  readonly defaultType: string;
}

/** The tool's description: what it does, and each subagent type with its own description. */
export function taskDescription(catalog: SubagentCatalog): string {
  const types = catalog.agents.map((a) => `- ${a.name}: ${a.description}`).join('\n');
  return (
    'Starts a subagent: a separate agent that works on one task with its own context and tools, ' +
    'then answers with a final report (its only output you see). Give it a complete, self-contained prompt. ' +
    `Subagent types (subagent_type):\n${types}`
  );
}

/** The `task` tool: runs a nested `runAgent` on the same host for the call, and answers with the subagent's final text. */
export function taskTool(deps: TaskToolDeps) {
  return defineTool({
    name: deps.options.name,
    description: taskDescription(deps.catalog),
    input: taskInput,
    output: z.string(),
    external: taskExternal,
    present: {
      presentCall: (args) => ({
        title: `Subagent ${typeof args.subagent_type === 'string' ? args.subagent_type : deps.defaultType}`,
        ...(typeof args.description === 'string' ? { summary: args.description } : {}),
      }),
    },
    execute: (args, ctx) => runSubagent(deps, args, ctx),
  });
}

async function runSubagent(deps: TaskToolDeps, args: z.output<typeof taskInput>, ctx: ToolContext): Promise<string> {
  const { host, options, catalog, runs } = deps;
  const type = args.subagent_type ?? deps.defaultType;
  const definition = catalog.get(type);
  if (definition === undefined) {
    const names = catalog.agents.map((a) => a.name).join(', ');
    throw subagentError(SubagentErrorCode.UNKNOWN_TYPE, `there is no subagent type "${type}"; the types are: ${names}`);
  }
  const caller = ctx.call.agent === undefined ? undefined : runs.get(ctx.call.agent.id);
  const depth = (caller?.depth ?? 0) + 1;
  if (depth > options.maxDepth) {
    throw subagentError(
      SubagentErrorCode.DEPTH_EXCEEDED,
      `subagents may nest ${options.maxDepth} deep; this one (depth ${caller?.depth ?? 0}) may not start another: do the task yourself`,
      { depth, maxDepth: options.maxDepth },
    );
  }
  const allowed = allowedTools(host, definition, caller?.allowed);
  // At the deepest level the task tool is not offered (a call to it would be refused for depth anyway).
  const visible = depth < options.maxDepth ? allowed : new Set([...allowed].filter((name) => name !== options.name));
  const run: ActiveRun = {
    id: runs.newId(ctx.call.id),
    type: definition.name,
    depth,
    allowed,
    budget: caller?.budget ?? new CallBudget(options.maxToolCalls),
    calls: 0,
  };
  const agent = { id: run.id, type: run.type };
  runs.add(run);
  let result: AgentResult | undefined;
  let failure: unknown;
  try {
    await ctx.emit('subagent/start', {
      agent,
      depth,
      description: args.description,
      tools: [...allowed].sort(),
      source: definition.source,
      ...(definition.model === undefined ? {} : { model: definition.model }),
    });
    const stop = new AbortController();
    result = await runAgent({
      host,
      // The model is offered only these; runAgent refuses a call to any other (AGENT_TOOL_NOT_OFFERED).
      tools: [...visible],
      model: modelFor(definition, options),
      ...(definition.prompt === '' ? {} : { system: definition.prompt }),
      messages: [{ role: 'user', text: args.prompt }],
      maxTurns: options.maxTurns,
      parent: { id: ctx.call.id, token: ctx.call.token, signal: AbortSignal.any([ctx.signal, stop.signal]), agent },
      // Over budget: this loop ends after the step that hit it (every call of it answered).
      onMessage: (message) => {
        if (message.role === 'tool' && run.budget.exceeded) stop.abort();
      },
    });
  } catch (error) {
    failure = error;
  } finally {
    runs.delete(run.id);
  }
  const verdict = verdictOf(result, failure, run, ctx.signal);
  const end: SubagentEndEventData = {
    agent,
    stop: result?.stop ?? 'failed',
    turns: result?.turns ?? 0,
    usage: { inputTokens: result?.usage.inputTokens ?? 0, outputTokens: result?.usage.outputTokens ?? 0 },
    calls: run.calls,
    outcome: verdict instanceof ToolError ? 'error' : 'ok',
    ...(verdict instanceof ToolError ? { code: verdict.code } : {}),
  };
  try {
    await ctx.emit('subagent/end', end);
  } catch (error) {
    // The task's own result is still logged by core; only this record is missing.
    host.diagnostics.record('SUBAGENT_END_NOT_LOGGED', deps.options.name, messageOf(error), ctx.call.id);
  }
  if (verdict instanceof ToolError) throw verdict;
  return verdict;
}

function modelFor(definition: SubagentDefinition, options: ResolvedOptions): Model {
  const name = definition.model;
  if (name === undefined || name === 'inherit') return options.model;
  return Object.hasOwn(options.models, name) ? (options.models[name] as Model) : options.model;
}

/** The task's answer: the subagent's final text, or a `ToolError` that says why there is none. */
function verdictOf(result: AgentResult | undefined, failure: unknown, run: ActiveRun, signal: AbortSignal): string | ToolError {
  if (result === undefined) {
    if (failure instanceof ToolError) return failure;
    return subagentError(SubagentErrorCode.MODEL_FAILED, `the subagent could not run: ${messageOf(failure)}`);
  }
  const last = result.text === '' ? '' : ` Its last text: ${result.text}`;
  const data = { turns: result.turns, text: result.text };
  switch (result.stop) {
    case 'end':
      return result.text;
    case 'max-turns':
      return subagentError(
        SubagentErrorCode.MAX_TURNS,
        `the subagent "${run.type}" used its ${result.turns} turns without finishing.${last}`,
        data,
      );
    case 'aborted':
      if (signal.aborted) return new ToolError(ErrorCode.ABORTED, `the subagent "${run.type}" was stopped: the task call was cancelled`);
      return subagentError(
        SubagentErrorCode.CALL_LIMIT,
        `the subagent "${run.type}" was stopped: the task reached its ${run.budget.max} tool calls.${last}`,
        data,
      );
    case 'model-error':
      return subagentError(SubagentErrorCode.MODEL_FAILED, `the subagent's model failed: ${result.error?.message ?? 'no message'}`, data);
    default:
      return subagentError(SubagentErrorCode.INCOMPLETE, `the subagent "${run.type}" ended without an answer (${result.stop}).${last}`, {
        ...data,
        stop: result.stop,
      });
  }
}

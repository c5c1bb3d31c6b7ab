import { definePlugin, type Host, type Plugin } from '@deepseek-ai/dsh-core';
import { loadCatalog, type SubagentCatalog } from './catalog.js';
import type { SubagentDefinition } from './definition.js';
import { SubagentErrorCode, type SubagentProblem } from './errors.js';
import { defineSubagentEvents } from './events.js';
import { resolveOptions, type ToolSubagentOptions } from './options.js';
import { ActiveRuns } from './runs.js';
import { taskTool } from './task-tool.js';
import { version } from './version.js';

/** The plugin's name, as `host.plugins()` lists it. */
export const toolSubagentPluginName = 'tool-subagent';

/** The name of the built-in type a `task` call without `subagent_type` gets (a definition of that name replaces it). */
export const generalPurposeType = 'general-purpose';

/** The stage of the plugin's pre-execute tap: before every other tap, so a refused call meets no hook and no prompt. */
export const subagentTapStage = -1_000_000;

/** The `toolSubagent()` plugin, with the definitions it found. */
export interface SubagentPlugin extends Plugin {
  /** The subagent types (empty before the host registers the plugin). */
  catalog(): SubagentCatalog;
  /** Every problem met loading definitions, each also a host diagnostic with its code. */
  problems(): readonly SubagentProblem[];
}

const emptyCatalog: SubagentCatalog = Object.freeze({ agents: [], problems: [], get: () => undefined });

/**
 * Subagents as a plugin: registers the `task` tool (Claude Code's `Agent`),
 * which runs a nested `runAgent` on the same host, so every call a subagent
 * makes passes the same taps, hooks, rules, guards, approvals, timeouts and
 * log as the main agent's, carrying the `task` call's token and the
 * subagent's identity (`CallIdentity.agent`). A first pre-execute tap keeps
 * each subagent to its definition's tools and the call budget. Definitions
 * are read from `.claude/agents/*.md` (project, then user) when the host
 * registers the plugin. Options are checked here (`INVALID_OPTIONS` naming
 * the field). One instance per host.
 */
export function toolSubagent(options: ToolSubagentOptions): SubagentPlugin {
  const o = resolveOptions(options);
  const runs = new ActiveRuns();
  let catalog = emptyCatalog;
  let problems: readonly SubagentProblem[] = [];
  const builtIn: SubagentDefinition = Object.freeze({
    name: generalPurposeType,
    description: 'A general-purpose agent for research and multi-step tasks, with every tool you may use.',
    prompt: o.generalPurposePrompt,
    source: 'built-in',
  });

  const plugin = definePlugin({
    name: o.name === 'task' ? toolSubagentPluginName : `${toolSubagentPluginName}-${o.name}`,
    version,
    async register(host: Host) {
      catalog = await loadCatalog({ agents: o.agents, roots: o.roots, maxDefinitionBytes: o.maxDefinitionBytes, builtIn });
      problems = [...catalog.problems, ...unknownModels(catalog, o.models)];
      for (const problem of problems) host.diagnostics.record(problem.code, plugin.name, problem.message);
      defineSubagentEvents(host);
      host.hooks.preExecute.tap({ name: plugin.name, stage: subagentTapStage }, (state) => runs.check(state.call));
      host.tools.register(taskTool({ host, options: o, catalog, runs, defaultType: generalPurposeType }));
    },
  });
  return Object.freeze({ ...plugin, catalog: () => catalog, problems: () => problems });
}

function unknownModels(catalog: SubagentCatalog, models: Readonly<Record<string, unknown>>): SubagentProblem[] {
  return catalog.agents
    .filter((a) => a.model !== undefined && a.model !== 'inherit' && !Object.hasOwn(models, a.model))
    .map((a) => {
      const path = a.file ?? a.source;
      return {
        code: SubagentErrorCode.MODEL_UNKNOWN,
        message: `${path}: the model "${a.model}" is not among the plugin's models (${Object.keys(models).join(', ') || 'none'}); the default model runs "${a.name}"`,
        path,
        skipped: false,
      };
    });
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Model } from '@deepseek-ai/dsh-agent';
import { codeMode } from '@deepseek-ai/dsh-code-mode';
import type { Plugin } from '@deepseek-ai/dsh-core';
import { hooksBridge } from '@deepseek-ai/dsh-hooks-bridge';
import { mcp } from '@deepseek-ai/dsh-mcp';
import { otel } from '@deepseek-ai/dsh-otel';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { retryPolicy } from '@deepseek-ai/dsh-retry-policy';
import { timeoutPolicy } from '@deepseek-ai/dsh-timeout-policy';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { type SkillCatalog, toolSkill } from '@deepseek-ai/dsh-tool-skill';
import { toolSubagent } from '@deepseek-ai/dsh-tool-subagent';
import { toolTodo } from '@deepseek-ai/dsh-tool-todo';
import { toolWeb } from '@deepseek-ai/dsh-tool-web';
import { type PluginKey, pluginKeys } from './config.js';

/** Options of one plugin as `dsh` passes them to its factory (which validates them). */
export type PluginOptions = Record<string, unknown>;

/** What some factories need besides their options: the model (subagents) and the skills found (skill tool). */
export interface FactoryContext {
  readonly model: Model;
  readonly skills: SkillCatalog | undefined;
}

/** Registration order: `pluginKeys`, which lists policies first, tools, then the plugins that read the tools (hooks, permissions, Code Mode). */
export const registrationOrder: readonly PluginKey[] = pluginKeys;

/** Where `dsh` reads MCP servers by default, in order (a later entry of the same name wins): Claude Code's files. */
export const defaultMcpFiles: readonly string[] = ['.claude/settings.json', '.mcp.json'];

/** Options `discoverSkills` takes; the rest of the skill plugin's options are its own. */
export const skillDiscoveryKeys: readonly string[] = ['projectDir', 'homeDir', 'roots', 'userSkills', 'maxSkillBytes', 'maxFiles'];

/** The options `dsh` fills in from the workspace before the file's own. */
export function defaultsOf(key: PluginKey, workspace: string): PluginOptions {
  switch (key) {
    case 'toolFs':
      return { roots: [workspace], cwd: workspace };
    case 'toolBash':
      return { cwd: workspace };
    case 'toolSkill':
    case 'toolSubagent':
    case 'hooksBridge':
      return { projectDir: workspace };
    case 'permissions':
      return { projectDir: workspace, cwd: workspace };
    case 'mcp':
      // Only the files that exist: a missing one would be reported as a problem on every run.
      return { cwd: workspace, configFiles: defaultMcpFiles.filter((f) => existsSync(join(workspace, f))) };
    default:
      return {};
  }
}

type Factory = (options: PluginOptions, context: FactoryContext) => Plugin;

/** Each configurable plugin's factory; the casts are safe because every factory validates its options with zod. */
export const factories: Readonly<Record<PluginKey, Factory>> = {
  otel: (o) => otel(o as Parameters<typeof otel>[0]),
  timeoutPolicy: (o) => timeoutPolicy(o as Parameters<typeof timeoutPolicy>[0]),
  retryPolicy: (o) => retryPolicy(o as Parameters<typeof retryPolicy>[0]),
  toolFs: (o) => toolFs(o as Parameters<typeof toolFs>[0]),
  toolBash: (o) => toolBash(o as Parameters<typeof toolBash>[0]),
  toolTodo: (o) => toolTodo(o as Parameters<typeof toolTodo>[0]),
  toolWeb: (o) => toolWeb(o as Parameters<typeof toolWeb>[0]),
  toolSkill: (o, c) => toolSkill({ ...(o as Parameters<typeof toolSkill>[0]), ...(c.skills === undefined ? {} : { catalog: c.skills }) }),
  mcp: (o) => mcp(o as Parameters<typeof mcp>[0]),
  toolSubagent: (o, c) => toolSubagent({ model: c.model, ...(o as Omit<Parameters<typeof toolSubagent>[0], 'model'>) }),
  hooksBridge: (o) => hooksBridge(o as Parameters<typeof hooksBridge>[0]),
  permissions: (o) => permissions(o as Parameters<typeof permissions>[0]),
  codeMode: (o) => codeMode(o as Parameters<typeof codeMode>[0]),
};

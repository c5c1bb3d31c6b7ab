import type { Model } from '@deepseek-ai/dsh-agent';
import {
  type ApprovalProvider,
  createHost,
  DshError,
  type EventSink,
  type Host,
  messageOf,
  type Plugin,
  type UiAdapter,
} from '@deepseek-ai/dsh-core';
import type { McpPlugin } from '@deepseek-ai/dsh-mcp';
import type { PermissionPrompt, PermissionsPlugin } from '@deepseek-ai/dsh-permissions';
import { discoverSkills, type SkillCatalog, type SkillPlugin } from '@deepseek-ai/dsh-tool-skill';
import type { SubagentPlugin } from '@deepseek-ai/dsh-tool-subagent';
import type { DshConfig, PluginKey } from './config.js';
import { type ConfigProblem, configProblemsOf, describeConfigProblems } from './config-problems.js';
import { CliError, CliErrorCode } from './errors.js';
import { defaultsOf, factories, type PluginOptions, registrationOrder, skillDiscoveryKeys } from './plugin-factories.js';

export type { PluginOptions } from './plugin-factories.js';

type Options = PluginOptions;

/** What a command needs to build its host. */
export interface HostSetup {
  readonly workspace: string;
  readonly config: DshConfig;
  /** Where the configuration came from, for error messages (`dsh.config.json`). */
  readonly configSource?: string;
  readonly session?: string;
  readonly sink?: EventSink;
  readonly ui?: UiAdapter;
  /** Asked for calls left at `ask`; wrapped by the permissions plugin when it is on. Without one, asks are denied. */
  readonly prompt?: PermissionPrompt;
  /** Options a command puts over the file's (the demo's sandbox choice, say). */
  readonly overrides?: Partial<Record<PluginKey, Options | false>>;
  /** Plugins of the command itself, registered after the tools and before Code Mode. */
  readonly extraPlugins?: readonly Plugin[];
  /**
   * The model subagents (the `task` tool) run on. Commands that run no model
   * (`replay`, `log`, `catalog`) leave it out: the tool is still registered
   * (so rules, hooks and cards see it) and a subagent started there fails at
   * once (`SUBAGENT_MODEL_FAILED`, "this dsh command runs no model").
   */
  readonly model?: Model;
  /** Any configuration problem (a settings file skipped, a rule or hook left out) fails the set-up with `CONFIG_INVALID`. */
  readonly strict?: boolean;
}

/** A host with the configured plugins registered. */
export interface BuiltHost {
  readonly host: Host;
  /** The permissions plugin, when configured: its mode, rules and problems. */
  readonly permissions: PermissionsPlugin | undefined;
  /** The MCP plugin, when configured: its servers, their tools and problems. */
  readonly mcp: McpPlugin | undefined;
  /** The skill plugin, when configured: its catalog and `summary()` for the system prompt. */
  readonly skills: SkillPlugin | undefined;
  /** The subagent plugin, when configured: its definitions and the problems met loading them. */
  readonly subagents: SubagentPlugin | undefined;
  /** The plugins that were registered, by configuration key, in registration order. */
  readonly plugins: readonly PluginKey[];
  /** What the plugins could not take from the configuration: none of it is in force. */
  readonly configProblems: readonly ConfigProblem[];
  /**
   * Stops what outlives a command: the MCP servers' processes (core has no
   * shutdown hook), then closes the host (flushes the log). Idempotent.
   */
  shutdown(): Promise<void>;
}

/** A model for commands that run none: every request fails with a message that says so. */
function noModel(): Model {
  return () =>
    Promise.reject(new DshError('CLI_NO_MODEL', 'this dsh command runs no model: subagents only run under `dsh run` (and `dsh demo`)'));
}

/**
 * Creates a host and registers every configured plugin (all of them unless
 * the configuration says `false`), in a fixed order. A plugin that refuses
 * its options, or fails to register, is `CONFIG_INVALID` naming
 * `plugins.<key>` and the field. Skills are discovered first, so that their
 * folders reach tool-fs as read-only roots.
 */
export async function buildHost(setup: HostSetup): Promise<BuiltHost> {
  const planned: { key: PluginKey; options: Options }[] = [];
  for (const key of registrationOrder) {
    const fromFile = setup.config.plugins?.[key];
    const override = setup.overrides?.[key];
    if (fromFile === false || override === false) continue;
    planned.push({ key, options: { ...defaultsOf(key, setup.workspace), ...fromFile, ...override } });
  }
  const source = setup.configSource ?? 'configuration';
  const skills = await findSkills(planned, source);
  if (skills !== undefined && skills.directories.length > 0) {
    const fs = planned.find((p) => p.key === 'toolFs');
    if (fs !== undefined) {
      const given = Array.isArray(fs.options.readOnlyRoots) ? (fs.options.readOnlyRoots as unknown[]) : [];
      fs.options = { ...fs.options, readOnlyRoots: [...given, ...skills.directories] };
    }
  }
  const context = { model: setup.model ?? noModel(), skills };
  const made: { key: PluginKey; plugin: Plugin }[] = planned.map(({ key, options }) => ({
    key,
    plugin: make(key, options, source, context),
  }));
  const find = (key: PluginKey): Plugin | undefined => made.find((m) => m.key === key)?.plugin;
  const perms = find('permissions') as PermissionsPlugin | undefined;
  const mcpPlugin = find('mcp') as McpPlugin | undefined;
  const approval: ApprovalProvider | undefined =
    setup.prompt === undefined ? undefined : perms !== undefined ? perms.approval(setup.prompt) : (setup.prompt as ApprovalProvider);
  const host = createHost({
    ...(setup.session === undefined ? {} : { session: setup.session }),
    ...(setup.sink === undefined ? {} : { sink: setup.sink }),
    ...(setup.ui === undefined ? {} : { ui: setup.ui }),
    ...(approval === undefined ? {} : { approval }),
    defaultDecision: setup.config.defaultDecision ?? 'ask',
  });
  let closed: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    closed ??= (async () => {
      try {
        await mcpPlugin?.close();
      } finally {
        await host.close();
      }
    })();
    return closed;
  };
  try {
    for (const { key, plugin } of made) {
      if (key === 'codeMode') for (const extra of setup.extraPlugins ?? []) await host.use(extra);
      try {
        await host.use(plugin);
      } catch (error) {
        throw new CliError(CliErrorCode.CONFIG_INVALID, `${source}: plugins.${key}: ${messageOf(error)}`, { cause: error });
      }
    }
    if (!made.some((m) => m.key === 'codeMode')) for (const extra of setup.extraPlugins ?? []) await host.use(extra);
  } catch (error) {
    // A server already started must not outlive a failed set-up.
    await shutdown().catch(() => undefined);
    throw error;
  }
  const configProblems = configProblemsOf(host, perms);
  if (setup.strict === true && configProblems.length > 0) {
    await shutdown().catch(() => undefined);
    throw new CliError(CliErrorCode.CONFIG_INVALID, `--strict: ${describeConfigProblems(configProblems).trimEnd()}`);
  }
  return {
    host,
    permissions: perms,
    mcp: mcpPlugin,
    skills: find('toolSkill') as SkillPlugin | undefined,
    subagents: find('toolSubagent') as SubagentPlugin | undefined,
    plugins: made.map((m) => m.key),
    configProblems,
    shutdown,
  };
}

/**
 * Checks every configured plugin's options as `buildHost` does, without registering anything: the
 * same `CONFIG_INVALID` error, also for the plugins a command leaves out or overrides (`dsh config
 * check` starts no server and probes no sandbox, yet must refuse what `dsh run` would refuse).
 */
export function checkPluginOptions(setup: Pick<HostSetup, 'workspace' | 'config' | 'configSource'>): void {
  const source = setup.configSource ?? 'configuration';
  for (const key of registrationOrder) {
    const fromFile = setup.config.plugins?.[key];
    if (fromFile === false) continue;
    make(key, { ...defaultsOf(key, setup.workspace), ...fromFile }, source, { model: noModel(), skills: undefined });
  }
}

async function findSkills(planned: readonly { key: PluginKey; options: Options }[], source: string): Promise<SkillCatalog | undefined> {
  const entry = planned.find((p) => p.key === 'toolSkill');
  if (entry === undefined) return undefined;
  const discover = Object.fromEntries(Object.entries(entry.options).filter(([k]) => skillDiscoveryKeys.includes(k)));
  try {
    return await discoverSkills(discover);
  } catch (error) {
    throw configError('toolSkill', error, source);
  }
}

function make(key: PluginKey, options: Options, source: string, context: Parameters<(typeof factories)[PluginKey]>[1]): Plugin {
  try {
    return factories[key](options, context);
  } catch (error) {
    throw configError(key, error, source);
  }
}

function configError(key: PluginKey, error: unknown, source: string): CliError {
  const message = messageOf(error);
  // Factories say `toolBash: sandbox.fallback: …`; the configuration key is `plugins.toolBash.sandbox.fallback`.
  const prefix = `${key}: `;
  const detail = message.startsWith(prefix) ? `.${message.slice(prefix.length)}` : `: ${message}`;
  const code = DshError.isInstance(error) ? ` (${error.code})` : '';
  return new CliError(CliErrorCode.CONFIG_INVALID, `${source}: plugins.${key}${detail}${code}`, { cause: error });
}

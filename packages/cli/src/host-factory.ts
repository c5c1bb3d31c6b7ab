import { codeMode } from '@deepseek-ai/dsh-code-mode';
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
import { hooksBridge } from '@deepseek-ai/dsh-hooks-bridge';
import { otel } from '@deepseek-ai/dsh-otel';
import { type PermissionPrompt, type PermissionsPlugin, permissions } from '@deepseek-ai/dsh-permissions';
import { retryPolicy } from '@deepseek-ai/dsh-retry-policy';
import { timeoutPolicy } from '@deepseek-ai/dsh-timeout-policy';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import type { DshConfig, PluginKey } from './config.js';
import { CliError, CliErrorCode } from './errors.js';

/** Options of one plugin as `dsh` passes them to its factory (which validates them). */
export type PluginOptions = Record<string, unknown>;
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
}

/** A host with the configured plugins registered. */
export interface BuiltHost {
  readonly host: Host;
  /** The permissions plugin, when configured: its mode, rules and problems. */
  readonly permissions: PermissionsPlugin | undefined;
  /** The plugins that were registered, by configuration key, in registration order. */
  readonly plugins: readonly PluginKey[];
}

/** Registration order: policies first, tools, then the plugins that read the tools (hooks, permissions, Code Mode). */
const order: readonly PluginKey[] = [
  'otel',
  'timeoutPolicy',
  'retryPolicy',
  'toolFs',
  'toolBash',
  'hooksBridge',
  'permissions',
  'codeMode',
];

/** The options `dsh` fills in from the workspace before the file's own. */
function defaultsOf(key: PluginKey, workspace: string): Options {
  switch (key) {
    case 'toolFs':
      return { roots: [workspace], cwd: workspace };
    case 'toolBash':
      return { cwd: workspace };
    case 'hooksBridge':
      return { projectDir: workspace };
    case 'permissions':
      return { projectDir: workspace, cwd: workspace };
    default:
      return {};
  }
}

const factories: Readonly<Record<PluginKey, (options: Options) => Plugin>> = {
  otel: (o) => otel(o as Parameters<typeof otel>[0]),
  timeoutPolicy: (o) => timeoutPolicy(o as Parameters<typeof timeoutPolicy>[0]),
  retryPolicy: (o) => retryPolicy(o as Parameters<typeof retryPolicy>[0]),
  toolFs: (o) => toolFs(o as Parameters<typeof toolFs>[0]),
  toolBash: (o) => toolBash(o as Parameters<typeof toolBash>[0]),
  hooksBridge: (o) => hooksBridge(o as Parameters<typeof hooksBridge>[0]),
  permissions: (o) => permissions(o as Parameters<typeof permissions>[0]),
  codeMode: (o) => codeMode(o as Parameters<typeof codeMode>[0]),
};

/**
 * Creates a host and registers every configured plugin (all of them unless
 * the configuration says `false`), in a fixed order. A plugin that refuses
 * its options, or fails to register, is `CONFIG_INVALID` naming
 * `plugins.<key>` and the field.
 */
export async function buildHost(setup: HostSetup): Promise<BuiltHost> {
  const planned: { key: PluginKey; options: Options }[] = [];
  for (const key of order) {
    const fromFile = setup.config.plugins?.[key];
    const override = setup.overrides?.[key];
    if (fromFile === false || override === false) continue;
    planned.push({ key, options: { ...defaultsOf(key, setup.workspace), ...fromFile, ...override } });
  }
  const source = setup.configSource ?? 'configuration';
  const made: { key: PluginKey; plugin: Plugin }[] = planned.map(({ key, options }) => ({ key, plugin: make(key, options, source) }));
  const perms = made.find((m) => m.key === 'permissions')?.plugin as PermissionsPlugin | undefined;
  const approval: ApprovalProvider | undefined =
    setup.prompt === undefined ? undefined : perms !== undefined ? perms.approval(setup.prompt) : (setup.prompt as ApprovalProvider);
  const host = createHost({
    ...(setup.session === undefined ? {} : { session: setup.session }),
    ...(setup.sink === undefined ? {} : { sink: setup.sink }),
    ...(setup.ui === undefined ? {} : { ui: setup.ui }),
    ...(approval === undefined ? {} : { approval }),
    defaultDecision: setup.config.defaultDecision ?? 'ask',
  });
  for (const { key, plugin } of made) {
    if (key === 'codeMode') for (const extra of setup.extraPlugins ?? []) await host.use(extra);
    try {
      await host.use(plugin);
    } catch (error) {
      throw new CliError(CliErrorCode.CONFIG_INVALID, `${source}: plugins.${key}: ${messageOf(error)}`, { cause: error });
    }
  }
  if (!made.some((m) => m.key === 'codeMode')) for (const extra of setup.extraPlugins ?? []) await host.use(extra);
  return { host, permissions: perms, plugins: made.map((m) => m.key) };
}

function make(key: PluginKey, options: Options, source: string): Plugin {
  try {
    return factories[key](options);
  } catch (error) {
    const message = messageOf(error);
    // Factories say `toolBash: sandbox.fallback: …`; the configuration key is `plugins.toolBash.sandbox.fallback`.
    const prefix = `${key}: `;
    const detail = message.startsWith(prefix) ? `.${message.slice(prefix.length)}` : `: ${message}`;
    const code = DshError.isInstance(error) ? ` (${error.code})` : '';
    throw new CliError(CliErrorCode.CONFIG_INVALID, `${source}: plugins.${key}${detail}${code}`, { cause: error });
  }
}

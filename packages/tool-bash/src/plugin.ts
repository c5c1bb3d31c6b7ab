import { isAbsolute, join, resolve } from 'node:path';
import { DshError, definePlugin, ErrorCode, type Host, type Plugin, z } from '@deepseek-ai/dsh-core';
import { bashTool } from './bash-tool.js';
import { allowedHostEnvironment } from './environment.js';
import { BashErrorCode } from './errors.js';
import { CallMarkers } from './internal/call-markers.js';
import { CgroupFactory, cgroupName } from './internal/cgroups.js';
import { OutputDirectory } from './internal/output-dir.js';
import { LauncherPool } from './internal/prepared-launchers.js';
import { envAllowList, parseToolBashOptions, type ResolvedToolBashOptions, type ToolBashOptions } from './options.js';
import { agentFiles } from './sandbox/agent-files.js';
import { bwrapSandbox } from './sandbox/bwrap.js';
import { HostPolicyReader } from './sandbox/host-policy.js';
import { expandHome } from './sandbox/masks.js';
import { registerNetworkAccess } from './sandbox/network-access-tool.js';
import { networkConnectEvent, networkConnectMeaning } from './sandbox/network-connect-event.js';
import { NetworkEgress } from './sandbox/network-egress.js';
import { parseNetworkDomains } from './sandbox/network-policy.js';
import { noSandbox } from './sandbox/none.js';
import type { SandboxPolicy, SandboxProbe, SandboxProvider } from './sandbox/provider.js';
import { SandboxSelector } from './sandbox-selection.js';
import { version } from './version.js';
import { existingDirectory, insideRoots, WorkingDirectory } from './working-directory.js';

declare module '@deepseek-ai/dsh-core' {
  interface EventDataMap {
    /** Which sandbox a `bash` call ran in; `fallbackReason` when it ran without the configured one. */
    'bash/sandbox': { readonly provider: string; readonly fallbackReason?: string };
  }
}

/** The schema of the `bash/sandbox` event, logged once per call that runs. */
export const bashSandboxEvent = z.object({ provider: z.string(), fallbackReason: z.string().optional() });

/**
 * The bash tool as a plugin: registers the tool (`bash` by default), a
 * `tools/pre-execute` tap that selects the sandbox for each call, a guard
 * that holds calls to that selection, and the `bash/sandbox` event. Options
 * are validated here (`INVALID_OPTIONS` naming the field); the start
 * directory and roots must exist. The sandbox is probed once, with a real
 * run started when the host registers the plugin; the first call waits for it.
 */
export function toolBash(options: ToolBashOptions = {}): Plugin {
  const resolved = parseToolBashOptions(options);
  checkSandboxPaths(resolved);
  // A cwd of its own is checked now; without one, bash starts in the host's working directory, known at registration.
  const own = resolved.cwd === undefined ? undefined : resolveDirectories(resolved, resolved.cwd, 'cwd');
  const pluginName = resolved.name === 'bash' ? 'tool-bash' : `tool-bash-${resolved.name}`;
  /** What each host this plugin registered with must stop when it closes (keyed by the host `register` was given). */
  const started = new Map<Host, LauncherPool>();
  return definePlugin({
    name: pluginName,
    version,
    register: (host) => {
      const { start, roots } = own ?? resolveDirectories(resolved, host.anchors.cwd, "the host's working directory");
      const launchers = register(host, pluginName, resolved, start, roots);
      if (launchers !== undefined) started.set(host, launchers);
    },
    // The spare launchers (a shell each, in a cgroup of its own) would otherwise wait until this process exits.
    // Called without a host, it stops those of every host.
    close: async (host?: Host) => {
      const closing = host === undefined ? [...started.keys()] : [host];
      await Promise.all(
        closing.map((h) => {
          const launchers = started.get(h);
          started.delete(h);
          return launchers?.close();
        }),
      );
    },
  });
}

/** Registers the tool and its taps on `host`; returns the launcher pool to close with it, if any. */
function register(
  host: Host,
  pluginName: string,
  options: ResolvedToolBashOptions,
  start: string,
  roots: readonly string[],
): LauncherPool | undefined {
  const outputDir = new OutputDirectory(options.outputDir);
  const readOnlyPaths = roots.flatMap((root) => [
    // `.husky` holds hooks git runs (through core.hooksPath) in repositories set up with husky;
    // with git writes allowed, hooks and config stay read-only (commits need neither).
    ...(options.sandbox.gitWritable
      ? [join(root, '.git', 'hooks'), join(root, '.git', 'config')]
      : [join(root, '.git'), join(root, '.husky')]),
    ...options.sandbox.readOnlyPaths.map((p) => (isAbsolute(p) ? p : join(root, p))),
    ...(options.sandbox.protectAgentFiles ? agentFiles.map((p) => join(root, p)) : []),
  ]);
  const configured = providerOf(options);
  const home = options.sandbox.home ?? host.anchors.homeDir;
  const denyReadPaths = options.sandbox.denyRead.map((p) => expandHome(p, home));
  const limits = {
    processes: options.limits.processes ?? undefined,
    memoryBytes: options.limits.memoryBytes ?? undefined,
    cpuAsOneProcess: options.limits.cpuAsOneProcess,
  };
  const policy: SandboxPolicy = {
    writableRoots: roots,
    readOnlyPaths,
    extraReadablePaths: [],
    network: options.sandbox.network === true,
    cwd: start,
    denyReadPaths,
    ...(limits.processes === undefined ? {} : { maxProcesses: limits.processes }),
  };
  // Started here, awaited by the first call: a sandbox that is slow to start on a busy machine
  // must not make the host's registration time out.
  const probe = safeProbe(configured, policy);
  const selector = new SandboxSelector({
    toolName: options.name,
    configured,
    unsandboxed: noSandbox(),
    fallback: options.sandbox.fallback,
    probe,
    // A probe that timed out (a starved machine) is tried again by the next call, not kept for the session.
    reprobe: () => safeProbe(configured, policy),
  });
  try {
    host.events.define('bash/sandbox', bashSandboxEvent);
  } catch (error) {
    // Another tool-bash instance on this host defined it already; the schema is the same.
    if (!(DshError.isInstance(error) && error.code === ErrorCode.DUPLICATE_EVENT_TYPE)) throw error;
  }
  const hostEnvironment = allowedHostEnvironment(process.env, envAllowList(options));
  const markers = new CallMarkers();
  const egress = networkEgress(host, pluginName, options);
  const cgroups = options.cgroups ? CgroupFactory.detect() : undefined;
  const launchers = cgroups === undefined ? undefined : new LauncherPool(cgroups, limits, () => cgroupName(markers.next()));
  host.tools.register(
    bashTool({
      options,
      directory: new WorkingDirectory(start, roots),
      selector,
      outputDir,
      readOnlyPaths,
      denyReadPaths,
      limits,
      cgroups,
      launchers,
      hostEnvironment,
      markers,
      hostPolicy: new HostPolicyReader(host.sandboxPolicy, hostPolicyLimits),
      ...(egress === undefined ? {} : { egress }),
    }),
  );
  host.hooks.preExecute.tap(`${pluginName}/sandbox`, selector.tap);
  host.guards.register({ id: `${pluginName}/sandbox`, check: selector.check });
  return launchers;
}

/** The egress wiring, when `sandbox.network` is a policy: the access tool, its tap and guard, and the `network/connect` event. */
function networkEgress(host: Host, pluginName: string, options: ResolvedToolBashOptions): NetworkEgress | undefined {
  const network = options.sandbox.network;
  if (typeof network !== 'object') return undefined;
  const domains = parseNetworkDomains(network);
  try {
    host.events.define('network/connect', networkConnectEvent, networkConnectMeaning);
  } catch (error) {
    // Defined already by another instance or by web_fetch; the schema is the record of the same proxy.
    if (!(DshError.isInstance(error) && error.code === ErrorCode.DUPLICATE_EVENT_TYPE)) throw error;
  }
  const asker = registerNetworkAccess(host, pluginName, options.name);
  return new NetworkEgress({ host, network, domains, asker });
}

/** How far the host policy's globs are expanded per call before the call is refused instead. */
const hostPolicyLimits = { maxEntries: 50_000, maxMatches: 2_000 } as const;

function fail(field: string, message: string): never {
  throw new DshError(BashErrorCode.INVALID_OPTIONS, `toolBash: ${field}: ${message}`);
}

/** Where the first command starts (`cwd`: the option's or the host's, named by `field`) and the roots, each real and existing. */
function resolveDirectories(options: ResolvedToolBashOptions, cwd: string, field: string): { start: string; roots: string[] } {
  const start = existingDirectory(resolve(cwd)) ?? fail(field, `${cwd} is not an existing directory`);
  const roots = (options.roots ?? [start]).map(
    (root, i) => existingDirectory(resolve(start, root)) ?? fail(`roots.${i}`, `${root} is not an existing directory`),
  );
  if (!insideRoots(start, roots)) fail(field, `${start} is not inside any of the roots (${roots.join(', ')})`);
  return { start, roots };
}

function checkSandboxPaths(options: ResolvedToolBashOptions): void {
  options.sandbox.denyRead.forEach((p, i) => {
    if (!isAbsolute(p) && p !== '~' && !p.startsWith('~/')) fail(`sandbox.denyRead.${i}`, `${p} must be absolute or start with ~/`);
  });
  if (options.sandbox.home !== undefined && !isAbsolute(options.sandbox.home)) fail('sandbox.home', 'must be an absolute path');
  const network = options.sandbox.network;
  if (typeof network === 'object') {
    parseNetworkDomains(network);
    if (network.socketDirectory !== undefined && !isAbsolute(network.socketDirectory))
      fail('sandbox.network.socketDirectory', 'must be an absolute path');
  }
}

function providerOf(options: ResolvedToolBashOptions): SandboxProvider {
  const provider = options.sandbox.provider;
  if (provider === 'bwrap') return bwrapSandbox({ bwrapPath: options.sandbox.bwrapPath });
  if (provider === 'none') return noSandbox();
  return provider;
}

async function safeProbe(provider: SandboxProvider, policy: SandboxPolicy): Promise<SandboxProbe> {
  try {
    return await provider.probe(policy);
  } catch (error) {
    return { ok: false, reason: `the probe of the ${provider.name} sandbox failed: ${(error as Error)?.message ?? String(error)}` };
  }
}

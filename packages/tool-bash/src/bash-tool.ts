import { basename, join } from 'node:path';
import {
  type Card,
  DshError,
  defineTool,
  type JsonValue,
  messageOf,
  type Outcome,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  z,
} from '@deepseek-ai/dsh-core';
import { commandEnvironment } from './environment.js';
import { BashErrorCode } from './errors.js';
import { bashExternalNames } from './external.js';
import type { CallMarkers } from './internal/call-markers.js';
import { type CallCgroup, type CgroupFactory, type CgroupLimits, cgroupName } from './internal/cgroups.js';
import { mayChangeDirectory } from './internal/directory-change.js';
import { GitGuard, type PlantedGitDir } from './internal/git-guard.js';
import { OutputCapture } from './internal/output-capture.js';
import type { OutputDirectory } from './internal/output-dir.js';
import { type LauncherPool, launcherCommand } from './internal/prepared-launchers.js';
import { ProgressFeed } from './internal/progress-feed.js';
import { type RunOutcome, runProcess, SpawnError, type StopCause } from './internal/run-process.js';
import { inCgroups, shellScript } from './internal/shell.js';
import type { ResolvedToolBashOptions } from './options.js';
import { type BashResult, bashResultSchema, type StoppedResult } from './result.js';
import { type HostPolicyReader, withHostPolicy } from './sandbox/host-policy.js';
import type { NetworkEgress } from './sandbox/network-egress.js';
import { isNoSandbox } from './sandbox/none.js';
import type { EgressRelay, SandboxPolicy } from './sandbox/provider.js';
import type { SandboxSelector } from './sandbox-selection.js';
import type { WorkingDirectory } from './working-directory.js';

/** Longest command accepted: one argv string may not exceed 128 KiB on Linux. */
const maxCommandLength = 100_000;

/** The zod schema of the `bash` tool's arguments. */
export const bashInputSchema = z.strictObject({
  command: z
    .string()
    .max(maxCommandLength)
    .refine((c) => c.trim() !== '', 'must not be empty')
    .refine((c) => !c.includes('\0'), 'must not contain NUL bytes')
    .describe('The bash command to run.'),
  timeout: z.number().int().positive().optional().describe('Milliseconds before the command is killed; clamped to the configured maximum.'),
  description: z.string().max(1_000).optional().describe('What the command does, in a few words, for the user.'),
});

/** The `bash` tool's arguments. */
export type BashArgs = z.output<typeof bashInputSchema>;

/** What the tool body needs from the plugin. */
export interface BashToolEnvironment {
  readonly options: ResolvedToolBashOptions;
  readonly directory: WorkingDirectory;
  readonly selector: SandboxSelector;
  readonly outputDir: OutputDirectory;
  readonly readOnlyPaths: readonly string[];
  /** Paths hidden from sandboxed commands (`~` expanded); those that exist are masked. */
  readonly denyReadPaths: readonly string[];
  /** Limits for each call, applied where the host can enforce them. */
  readonly limits: CgroupLimits;
  /** Per-call cgroups, where this host allows them. */
  readonly cgroups: CgroupFactory | undefined;
  /** Launchers prepared in per-call cgroups ahead of the calls (with `cgroups`). */
  readonly launchers: LauncherPool | undefined;
  /** The allow-listed host variables, read when the plugin registered. */
  readonly hostEnvironment: Readonly<Record<string, string>>;
  /** Tags every process of a call, for the escapee sweep. */
  readonly markers: CallMarkers;
  /** The host's sandbox policy (permission rules, Claude Code's `sandbox` settings), applied to every sandboxed call. */
  readonly hostPolicy?: HostPolicyReader;
  /** The egress proxy, when `sandbox.network` is a policy object. */
  readonly egress?: NetworkEgress;
}

/** Runs a sandboxed call with its own egress socket (when the plugin has a network policy), closed once the call is over. */
async function withEgress<T>(env: BashToolEnvironment, ctx: ToolContext, run: (egress?: EgressRelay) => Promise<T>): Promise<T> {
  const provider = env.selector.selectionOf(ctx.call)?.provider;
  if (env.egress === undefined || provider === undefined || isNoSandbox(provider)) return await run();
  const call = await env.egress.open(ctx);
  try {
    // The relay listens before the sandbox exists (a provider without prepareEgress starts its own, or leaves the network off).
    const prepared = await provider.prepareEgress?.(call.relay);
    try {
      return await run(prepared === undefined ? call.relay : { ...call.relay, namespace: prepared.namespace });
    } finally {
      prepared?.release();
    }
  } finally {
    await call.close();
  }
}

/** Builds the `bash` tool definition. */
export function bashTool(env: BashToolEnvironment): ToolDefinition<typeof bashInputSchema, BashResult> {
  const { options } = env;
  // The rule that lets a command skip the directory report is bash's; other shells always report.
  const shellIsBash = basename(options.shell) === 'bash';
  return defineTool({
    name: options.name,
    description: describeTool(options),
    input: bashInputSchema,
    output: bashResultSchema,
    timeoutMs: options.defaultTimeoutMs,
    external: bashExternalNames,
    present: { presentCall, presentResult },
    execute: (args, ctx) => withEgress(env, ctx, (egress) => execute(env, shellIsBash, args, ctx, egress)),
  });
}

function describeTool(options: ResolvedToolBashOptions): string {
  return [
    'Runs a bash command in a fresh `bash -c` and returns its exit code, stdout, stderr and a combined view.',
    'The working directory carries over to the next command (a `cd` sticks while it stays inside the workspace roots);',
    'variables, functions, aliases and shell options do not. stdin is /dev/null.',
    `Commands time out after ${options.defaultTimeoutMs} ms unless \`timeout\` says otherwise (at most ${options.maxTimeoutMs} ms);`,
    'a timed-out command and everything it started are killed.',
    `Output beyond ${options.maxOutputChars} characters keeps its head and tail, and the full output is saved to a file whose path the result gives.`,
    options.sandbox.network === true
      ? 'In the sandbox, only the workspace roots are writable (.git stays read-only and may not be created), /tmp is private, and credentials such as ~/.ssh read as empty.'
      : options.sandbox.network === false
        ? 'In the sandbox, only the workspace roots are writable (.git stays read-only and may not be created), /tmp is private, credentials such as ~/.ssh read as empty, and there is no network (unix sockets included).'
        : 'In the sandbox, only the workspace roots are writable (.git stays read-only and may not be created), /tmp is private, credentials such as ~/.ssh read as empty, and the network goes through a proxy (HTTP_PROXY, ALL_PROXY are set) that may ask the user about each new destination.',
    'Processes do not outlive the command: start servers or watchers some other way.',
  ].join(' ');
}

async function execute(
  env: BashToolEnvironment,
  shellIsBash: boolean,
  args: BashArgs,
  ctx: ToolContext,
  egress?: EgressRelay,
): Promise<BashResult> {
  const { options, directory } = env;
  const selection = env.selector.selectionOf(ctx.call);
  if (selection === undefined) {
    throw new ToolError(
      BashErrorCode.SANDBOX_NOT_SELECTED,
      'no sandbox was selected for this call (the tool-bash sandbox tap did not run)',
    );
  }
  const notices: string[] = [];
  const provider = selection.provider;
  await ctx.emit('bash/sandbox', {
    provider: provider.name,
    ...(selection.fallbackReason === undefined ? {} : { fallbackReason: selection.fallbackReason }),
  });
  if (selection.fallbackReason !== undefined) notices.push(`ran without a sandbox: ${selection.fallbackReason}`);

  let timeoutMs = args.timeout ?? options.defaultTimeoutMs;
  if (timeoutMs > options.maxTimeoutMs) {
    notices.push(`the timeout of ${timeoutMs} ms was lowered to the maximum, ${options.maxTimeoutMs} ms`);
    timeoutMs = options.maxTimeoutMs;
  }
  const cwd = directory.beforeCall(notices);
  if (cwd === undefined) {
    throw new ToolError(BashErrorCode.CWD_MISSING, `the start directory ${directory.start} no longer exists, so no command can run`, {
      data: { cwd: directory.current, start: directory.start },
    });
  }
  if (ctx.signal.aborted) throw stoppedError({ kind: 'abort', reason: ctx.signal.reason }, undefined);

  const ownPolicy: SandboxPolicy = {
    writableRoots: directory.roots,
    readOnlyPaths: env.readOnlyPaths,
    extraReadablePaths: env.outputDir.existing === undefined ? [] : [env.outputDir.existing],
    network: options.sandbox.network === true,
    ...(egress === undefined ? {} : { egress }),
    cwd,
    denyReadPaths: env.denyReadPaths,
    ...(env.limits.processes === undefined ? {} : { maxProcesses: env.limits.processes }),
  };
  const policy = env.hostPolicy === undefined ? ownPolicy : withHostPolicy(ownPolicy, env.hostPolicy, !isNoSandbox(provider), notices);
  const marker = env.markers.next();
  const unsandboxed = isNoSandbox(provider);
  const gitGuard = unsandboxed || options.sandbox.gitWritable ? undefined : new GitGuard(directory.roots);
  const feed = new ProgressFeed((update) => ctx.progress(update), options.progressIntervalMs, options.progressMaxChars);
  const capture = new OutputCapture({
    maxChars: options.maxOutputChars,
    maxBytes: options.maxOutputBytes,
    fullOutputPath: () => join(env.outputDir.ensure(), `${ctx.call.id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 80)}-${marker}.log`),
    onText: (stream, text) => feed.push(stream, text),
  });

  const processEnv = commandEnvironment(env.hostEnvironment, options.env.set, provider.environment?.(policy) ?? {}, marker);
  const reportDirectory = !shellIsBash || mayChangeDirectory(args.command, processEnv);
  // A launcher prepared inside a fresh cgroup takes the kernel's migration off this call's path.
  const prepared = provider.wrap({ file: options.shell, args: ['-c', shellScript(args.command, reportDirectory)] }, policy);
  const viaLauncher = env.launchers === undefined ? undefined : launcherCommand(prepared, processEnv);
  const launcher = viaLauncher === undefined ? undefined : env.launchers?.take(unsandboxed);
  const cgroup = launcher?.cgroup ?? callCgroup(env, unsandboxed, marker);
  // Without one: unsandboxed, the shell joins the cgroup itself; a sandbox's inside cannot write /sys, so a launcher joins it first.
  const wrapped =
    launcher !== undefined && viaLauncher !== undefined
      ? viaLauncher
      : cgroup === undefined
        ? prepared
        : unsandboxed
          ? provider.wrap({ file: options.shell, args: ['-c', shellScript(args.command, reportDirectory, cgroup)] }, policy)
          : inCgroups(cgroup.procsFiles, prepared);
  let run: RunOutcome;
  try {
    run = await runProcess({
      command: wrapped,
      cgroup,
      launcher,
      cwd,
      env: processEnv,
      reportChannel: reportDirectory,
      marker: `DSH_BASH_CALL=${marker}`,
      containsProcessTree: provider.containsProcessTree,
      timeoutMs,
      killGraceMs: options.killGraceMs,
      sweep: options.sweepEscapees,
      maxBytes: options.maxOutputBytes,
      signal: ctx.signal,
      capture,
    });
  } catch (error) {
    feed.close();
    await capture.finish();
    if (error instanceof SpawnError) {
      const what = provider.containsProcessTree ? `the ${provider.name} sandbox` : `the shell "${options.shell}"`;
      throw new ToolError(BashErrorCode.SPAWN_FAILED, `${what} could not be started: ${error.message}`, {
        data: { errno: error.errno ?? null },
      });
    }
    throw error;
  } finally {
    feed.close();
    // The run has settled: nothing of the call is left to hold what the sandbox mounted.
    prepared.release?.();
  }
  const captured = await capture.finish();
  if (run.setupError !== undefined) throw run.setupError;
  const planted = gitGuard?.check(marker) ?? [];
  for (const p of planted)
    notices.push(`${p.path} was created by the command and ${p.movedTo === undefined ? 'could not be moved' : `moved to ${p.movedTo}`}`);
  directory.afterCall(run.report, notices);
  if (run.survivors.length > 0) notices.push(`processes ${run.survivors.join(', ')} could not be killed`);
  const result: BashResult = {
    exitCode: run.exitCode,
    signal: run.signal,
    output: captured.output,
    stdout: captured.stdout,
    stderr: captured.stderr,
    truncated: captured.truncated,
    ...(captured.fullOutputPath === undefined ? {} : { fullOutputPath: captured.fullOutputPath }),
    ...(captured.fullOutputError === undefined ? {} : { fullOutputError: captured.fullOutputError }),
    bytes: captured.bytes,
    cwd: directory.current,
    sandbox: provider.name,
    durationMs: run.durationMs,
    ...(cgroup === undefined || Object.keys(cgroup.limits).length === 0 ? {} : { limits: cgroup.limits }),
    ...(notices.length === 0 ? {} : { notices }),
  };
  if (run.stop !== undefined) throw stoppedError(run.stop, { ...result, escalated: run.escalated });
  if (planted.length > 0) throw plantedError(planted, result);
  return result;
}

/**
 * The call's cgroup: unsandboxed, for the kill that nothing escapes; in a
 * sandbox only for limits (its PID namespace already takes every process down).
 */
function callCgroup(env: BashToolEnvironment, unsandboxed: boolean, marker: string): CallCgroup | undefined {
  return env.cgroups?.create(cgroupName(marker), env.limits, unsandboxed);
}

function plantedError(planted: readonly PlantedGitDir[], result: BashResult): ToolError {
  const what = planted
    .map((p) =>
      p.movedTo === undefined ? `${p.path} (could not be moved: remove it before running git)` : `${p.path} (moved to ${p.movedTo})`,
    )
    .join(', ');
  return new ToolError(
    BashErrorCode.GIT_DIR_PLANTED,
    `the command created ${what}: git would run its hooks and config outside the sandbox, so it was moved out of git's reach. ` +
      'Sandboxed commands may not create git repositories in the workspace roots (sandbox.gitWritable allows it).',
    { data: { ...result, planted: planted.map((p) => ({ path: p.path, movedTo: p.movedTo ?? null })) } as unknown as JsonValue },
  );
}

/** The error of a stopped command, with what it produced as `data`. */
function stoppedError(stop: StopCause, partial: (BashResult & { escalated: boolean }) | undefined): ToolError {
  const data = (extra: Record<string, unknown>): JsonValue | undefined =>
    partial === undefined ? undefined : ({ ...partial, ...extra } as StoppedResult as unknown as JsonValue);
  const how = partial?.escalated ? 'killed (SIGKILL after SIGTERM was ignored)' : 'stopped with SIGTERM';
  switch (stop.kind) {
    case 'timeout':
      return new ToolError(
        BashErrorCode.TOOL_TIMEOUT,
        `the command did not finish within ${stop.timeoutMs} ms and was ${how}, with everything it started; its output so far is in the error data`,
        { data: data({ stoppedBy: 'timeout', timeoutMs: stop.timeoutMs }) },
      );
    case 'output-limit':
      return new ToolError(
        BashErrorCode.OUTPUT_LIMIT_EXCEEDED,
        `the command wrote more than ${stop.maxBytes} bytes and was ${how}; the output it wrote up to the limit is in the error data`,
        { data: data({ stoppedBy: 'output-limit' }) },
      );
    default: {
      const reason = stop.reason;
      const code = DshError.isInstance(reason) ? reason.code : BashErrorCode.ABORTED;
      const why = reason === undefined ? '' : `: ${messageOf(reason)}`;
      return new ToolError(code, `the command was cancelled${why}; it was ${how}, with everything it started`, {
        data: data({ stoppedBy: 'abort' }),
      });
    }
  }
}

function presentCall(args: Readonly<Record<string, unknown>>): Card {
  const command = typeof args.command === 'string' ? args.command : '';
  const description = typeof args.description === 'string' && args.description !== '' ? args.description : undefined;
  const firstLine = command.split('\n')[0] ?? '';
  return {
    title: 'bash',
    summary: description ?? (firstLine.length > 120 ? `${firstLine.slice(0, 120)}…` : firstLine),
    body: command,
    format: 'code',
  };
}

function presentResult(_args: BashArgs, outcome: Outcome): Card {
  if (outcome.status === 'ok') {
    const result = outcome.output as unknown as BashResult;
    const status = result.signal === null ? `exit ${result.exitCode}` : `killed by ${result.signal}`;
    return { title: 'bash', summary: result.truncated ? `${status} (output truncated)` : status, body: result.output, format: 'code' };
  }
  if (outcome.status === 'error') {
    const data = outcome.error.data as { output?: unknown } | undefined;
    const output = typeof data?.output === 'string' ? `\n\n${data.output}` : '';
    return { title: 'bash', summary: outcome.error.code, body: `${outcome.error.message}${output}`, format: 'code' };
  }
  return { title: 'bash', summary: outcome.status, body: outcome.reason };
}

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve, sep } from 'node:path';
import type { AnyToolDefinition, Args, Host } from '@deepseek-ai/dsh-core';
import { type HookDialect, type HookRunRecord, type HooksBridgeOptions, loadHookConfig } from '@deepseek-ai/dsh-hooks-bridge';
import { loadConfig } from '../config.js';
import { announceConfigProblems } from '../config-problems.js';
import { CliError, CliErrorCode } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { explainAnswer, explainMatch } from '../hooks/explain.js';
import { type HookRun, renderHooksCheck } from '../hooks/report.js';
import { buildHost } from '../host-factory.js';
import type { CliIo } from '../io.js';
import { installDryRun, installRecorder } from '../replay/dry-run.js';

/** Options of `dsh hooks check`. */
export interface HooksCheckOptions {
  /** Our tool name or another agent's (`Bash`). */
  readonly tool: string;
  /** The input as JSON text, in the vocabulary of `tool`. */
  readonly input: string;
  readonly json: boolean;
  readonly config?: string;
  readonly workspace?: string;
  /** A hooks file to check instead of the workspace's configuration. */
  readonly settings?: string;
  /** The combined decision the check must find; exit 1 otherwise. */
  readonly expect?: 'allow' | 'deny' | 'ask' | 'none';
  /** Any configuration problem (a settings file skipped, a rule or hook left out) is fatal: `CONFIG_INVALID`, nothing runs. */
  readonly strict?: boolean;
}

const callId = 'hooks-check';

/**
 * `dsh hooks check`: loads the hook configuration the hooks bridge would,
 * explains for every hook whether it matches a sample call, runs the call
 * through a real host (hooks bridge and tools, no body) and reports each
 * hook's command, stdin, exit code, stdout, stderr and parsed decision, and
 * the combined decision.
 */
export async function runHooksCheck(io: CliIo, options: HooksCheckOptions): Promise<ExitCode> {
  const loaded = loadConfig(io.cwd, options.config);
  const workspace = options.workspace === undefined ? loaded.workspace : resolve(io.cwd, options.workspace);
  const input = parseInput(options.input);
  const bridge = bridgeOptions(io, loaded.config.plugins?.hooksBridge, workspace, options.settings);
  const hookConfig = loadHookConfig({
    projectDir: bridge.projectDir ?? workspace,
    homeDir: bridge.homeDir ?? homedir(),
    userSettings: bridge.userSettings ?? true,
    ...(bridge.sources === undefined ? {} : { sources: bridge.sources }),
    ...(bridge.hooks === undefined ? {} : { hooks: bridge.hooks }),
    env: { ...process.env, ...bridge.env },
  });
  if (options.settings !== undefined && hookConfig.problems.length > 0) {
    const list = hookConfig.problems.map((p) => `${p.entry === '' ? p.source : p.entry}: ${p.message}`).join('; ');
    throw new CliError(CliErrorCode.INPUT_INVALID, `${options.settings}: ${list}`);
  }
  const toolBash = loaded.config.plugins?.toolBash;
  // What each hook saw and said, in full: the session log keeps only an excerpt of stderr.
  const records = new Map<string, HookRunRecord>();
  const { host, mcp, shutdown, configProblems } = await buildHost({
    workspace,
    config: { ...loaded.config, defaultDecision: 'allow' },
    configSource: loaded.file ?? 'defaults',
    session: 'hooks-check',
    overrides: {
      hooksBridge: { ...bridge, onHookRun: (run: HookRunRecord) => records.set(run.hook, run) } as Record<string, unknown>,
      // Only the hooks decide here: no rules, no programs, no policies around bodies that never run.
      permissions: false,
      codeMode: false,
      otel: false,
      timeoutPolicy: false,
      retryPolicy: false,
      // Bodies never run, so the sandbox does not matter; its probe must not deny the call before the hooks see it.
      ...(toolBash === false ? {} : { toolBash: { ...(toolBash ?? {}), sandbox: { provider: 'none' } } }),
    },
    strict: options.strict === true,
  });
  announceConfigProblems(io, configProblems);
  let tool: AnyToolDefinition;
  let args: Args;
  let step: Awaited<ReturnType<Host['runStep']>>;
  let events: ReturnType<Host['events']['list']>;
  let explained: { spec: (typeof hookConfig.hooks)[number]; match: ReturnType<typeof explainMatch> }[];
  let decided: ReturnType<typeof installRecorder>;
  try {
    // An MCP tool is registered once its server is ready.
    await mcp?.ready();
    ({ tool, args } = resolveTool(host, options.tool, input));
    const where = {
      projectDir: bridge.projectDir ?? workspace,
      cwd: bridge.cwd ?? bridge.projectDir ?? workspace,
      homeDir: bridge.homeDir ?? homedir(),
    };
    const t = tool;
    const a = args;
    explained = hookConfig.hooks.map((spec) => ({ spec, match: explainMatch(spec, t, a, where) }));
    installDryRun(host);
    decided = installRecorder(host);
    step = await host.runStep({ calls: [{ id: callId, name: tool.name, args }] });
    events = host.events.list();
  } finally {
    await shutdown();
  }

  const invoked = new Map<string, Record<string, unknown>>();
  const answered = new Map<string, Record<string, unknown>>();
  for (const event of events) {
    if (event.type === 'hook/invoked') invoked.set(event.data.hook, event.data as Record<string, unknown>);
    if (event.type === 'hook/result') answered.set(event.data.hook, event.data as Record<string, unknown>);
  }
  const runs: HookRun[] = explained.map(({ spec, match }) => {
    const inv = invoked.get(spec.id);
    const res = answered.get(spec.id);
    const duplicateOf = [...invoked.values()].find((i) => Array.isArray(i.duplicates) && (i.duplicates as unknown[]).includes(spec.id));
    const proc = inv === undefined ? undefined : records.get(spec.id);
    const base = { id: spec.id, source: spec.source, event: spec.event, dialect: spec.dialect, matched: match.matches, why: match.why };
    if (inv === undefined || res === undefined) {
      const why =
        duplicateOf === undefined ? match.why : `${match.why}; an identical command (${String(duplicateOf.hook)}) ran once for both`;
      return { ...base, why, ran: false, toolName: match.toolName, toolInput: match.toolInput };
    }
    const exitCode = typeof res.exitCode === 'number' ? res.exitCode : null;
    const decision = typeof res.decision === 'string' ? res.decision : undefined;
    const error = typeof res.error === 'string' ? res.error : undefined;
    return {
      ...base,
      ran: true,
      toolName: match.toolName,
      toolInput: match.toolInput,
      command: String(inv.command ?? spec.command),
      stdin: proc?.stdin,
      stdout: proc?.stdout,
      stderr: proc?.stderr ?? (typeof res.stderr === 'string' ? res.stderr : ''),
      exitCode,
      signal: typeof res.signal === 'string' ? res.signal : null,
      timedOut: res.timedOut === true,
      durationMs: typeof res.durationMs === 'number' ? res.durationMs : 0,
      decision,
      error,
      errorCode: typeof res.errorCode === 'string' ? res.errorCode : undefined,
      effect: explainAnswer({ exitCode, stdout: proc?.stdout, decision, error, dialect: spec.dialect }),
    };
  });

  const outcome = step.results[0]?.outcome;
  const recorded = decided.get(callId);
  let combined: 'allow' | 'deny' | 'ask' | 'none' = 'none';
  let reason: string | undefined;
  if (outcome?.status === 'denied' && outcome.by === 'hooks-bridge') {
    combined = 'deny';
    reason = outcome.reason;
  } else if (recorded?.decidedBy === 'hooks-bridge') {
    combined = recorded.decision;
    reason = recorded.reason;
  }
  const resultEvent = events.find((e) => e.type === 'tool/result' && e.call === callId);
  const rewritten = resultEvent?.type === 'tool/result' && resultEvent.data.originalArgs !== undefined ? resultEvent.data.args : undefined;
  const report = {
    tool: tool.name,
    args,
    hooks: runs,
    problems: hookConfig.problems,
    decision: combined,
    ...(reason === undefined ? {} : { reason }),
    ...(rewritten === undefined ? {} : { updatedArgs: rewritten }),
    context: step.context?.parts.map((p) => p.text) ?? [],
  };
  if (options.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout.write(renderHooksCheck(io.style, report));
  if (options.expect !== undefined && options.expect !== combined) {
    io.stderr.write(`dsh hooks check: expected the hooks to decide "${options.expect}", they decided "${combined}"\n`);
    return ExitCode.EXPECTATION_FAILED;
  }
  return ExitCode.OK;
}

function parseInput(text: string): Args {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(CliErrorCode.INPUT_INVALID, `--input is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(CliErrorCode.INPUT_INVALID, '--input must be a JSON object, such as {"command":"rm -rf /"}');
  }
  return value as Args;
}

/** The hooks bridge's options: the configuration's, or one file given with `--settings`. */
function bridgeOptions(io: CliIo, fromConfig: unknown, workspace: string, settings: string | undefined): HooksBridgeOptions {
  const base: HooksBridgeOptions = { projectDir: workspace, ...(typeof fromConfig === 'object' && fromConfig !== null ? fromConfig : {}) };
  if (settings === undefined) return base;
  const file = resolve(io.cwd, settings);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(CliErrorCode.INPUT_INVALID, `--settings ${settings}: ${(error as Error).message}`);
  }
  const hooks = (json as { hooks?: unknown } | null)?.hooks;
  if (typeof hooks !== 'object' || hooks === null) {
    throw new CliError(CliErrorCode.INPUT_INVALID, `--settings ${settings}: the file has no "hooks" object`);
  }
  const dialect: HookDialect = file.includes(`${sep}.gemini${sep}`)
    ? 'gemini'
    : file.includes(`${sep}.github${sep}hooks${sep}`)
      ? 'copilot'
      : 'claude';
  return { ...base, sources: [], userSettings: false, hooks: { [dialect]: hooks } };
}

/** Finds the tool: ours by name, else the one that declares `name` in Claude Code's, Gemini's or Copilot's vocabulary. */
function resolveTool(host: Host, name: string, input: Args): { tool: AnyToolDefinition; args: Args } {
  const own = host.tools.get(name);
  if (own !== undefined) return { tool: own, args: input };
  for (const dialect of ['claude', 'gemini', 'copilot'] as const) {
    const tool = host.tools.findExternal(dialect, name);
    const external = tool?.external?.[dialect];
    if (tool === undefined || external === undefined) continue;
    try {
      return { tool, args: external.fromExternal(input) };
    } catch (error) {
      throw new CliError(CliErrorCode.INPUT_INVALID, `--input does not fit ${name}: ${(error as Error).message}`);
    }
  }
  const known = host.tools
    .list()
    .map((t) => (t.external?.claude === undefined ? t.name : `${t.name} (${t.external.claude.name})`))
    .join(', ');
  throw new CliError(CliErrorCode.INPUT_INVALID, `--tool ${name}: no configured tool has that name; known: ${known}`);
}

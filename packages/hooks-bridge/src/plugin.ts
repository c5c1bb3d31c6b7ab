import { homedir } from 'node:os';
import { resolve } from 'node:path';
import {
  type AnyToolDefinition,
  type CallIdentity,
  definePlugin,
  type Host,
  type JsonValue,
  type Outcome,
  type Plugin,
  type PostExecuteVerdict,
  type PreExecuteUpdate,
  z,
} from '@deepseek-ai/dsh-core';
import { combinePost, combinePre } from './combine.js';
import { HookErrorCode, HooksBridgeError } from './errors.js';
import type { CallEnd } from './hook-answer.js';
import type { HookConfigProblem, HookSpec } from './hook-spec.js';
import { loadHookConfig } from './load-config.js';
import { type HooksBridgeOptions, parseHooksBridgeOptions } from './options.js';
import { type RunSettings, runMatchingHooks } from './run-hooks.js';
import { version } from './version.js';

declare module '@deepseek-ai/dsh-core' {
  interface EventDataMap {
    /** A hook configuration entry that could not be used (logged once, when the plugin registers). */
    'hooks-bridge/config-problem': { readonly source: string; readonly entry: string; readonly message: string };
  }
}

/** The plugin's name; also the name of its taps. */
export const hooksBridgeName = 'hooks-bridge';

/** Room left on a tap's deadline besides the slowest hook's own timeout and kill grace. */
const tapSlackMs = 5_000;

/**
 * Runs Claude Code, Gemini CLI and Copilot CLI command hooks on the pipeline.
 * PreToolUse/BeforeTool/preToolUse hooks tap `tools/pre-execute` (allow,
 * deny, ask, rewritten input, context); PostToolUse, PostToolUseFailure,
 * AfterTool and their Copilot forms tap `tools/post-execute` (withhold,
 * replace the output, add context). Files are read when the plugin
 * registers; bad entries are reported (diagnostics and a
 * `hooks-bridge/config-problem` event) and the others still run.
 * Throws `INVALID_OPTIONS` for bad options or bad hooks given in code.
 */
export function hooksBridge(options: HooksBridgeOptions = {}): Plugin {
  const o = parseHooksBridgeOptions(options);
  if (o.hooks !== undefined) {
    const given = loadHookConfig({ sources: [], hooks: o.hooks, ...(o.env === undefined ? {} : { env: { ...process.env, ...o.env } }) });
    const problem = given.problems[0];
    if (problem !== undefined) {
      throw new HooksBridgeError(HookErrorCode.INVALID_OPTIONS, `hooksBridge: ${problem.entry}: ${problem.message}`);
    }
  }
  return definePlugin({
    name: hooksBridgeName,
    version,
    register: (host) => register(host, o),
  });
}

function register(host: Host, o: HooksBridgeOptions): void {
  const projectDir = resolve(o.projectDir ?? process.cwd());
  const config = loadHookConfig({
    projectDir,
    homeDir: o.homeDir ?? homedir(),
    userSettings: o.userSettings ?? true,
    ...(o.sources === undefined ? {} : { sources: o.sources }),
    ...(o.hooks === undefined ? {} : { hooks: o.hooks }),
    env: { ...process.env, ...o.env },
  });
  const strict = o.strict ?? false;
  const settings: RunSettings = {
    projectDir,
    homeDir: o.homeDir ?? homedir(),
    cwd: resolve(o.cwd ?? projectDir),
    transcriptPath: o.transcriptPath ?? null,
    permissionMode: o.permissionMode ?? 'default',
    env: o.env ?? {},
    killGraceMs: o.killGraceMs ?? 1_000,
    drainMs: o.drainMs ?? 250,
    interpret: { postBlock: o.postBlock ?? 'feedback' },
    overrides: o.external ?? {},
    report: (code, message, call) => host.diagnostics.record(code, hooksBridgeName, message, call),
    onRun: o.onHookRun,
  };
  reportProblems(host, config.problems);

  const pre = config.hooks.filter((h) => h.phase === 'pre');
  const post = config.hooks.filter((h) => h.phase === 'post');
  const strictDenial = strict && config.problems.length > 0 ? configDenial(config.problems) : undefined;
  // Context a pre hook gave, held until the call's post-execute tap adds it.
  const pending = new Map<string, string[]>();
  const keyOf = (call: CallIdentity): string => `${call.token}\u0000${call.id}`;

  if (pre.length > 0 || strictDenial !== undefined) {
    host.hooks.preExecute.tap(
      { name: hooksBridgeName, stage: o.stage ?? 0, timeoutMs: deadlineOf(pre, settings) },
      async (state, info): Promise<PreExecuteUpdate | undefined> => {
        if (strictDenial !== undefined) return { decision: 'deny', reason: strictDenial };
        const answered = await runMatchingHooks(
          pre,
          { host, call: info.call, tool: info.tool, args: state.args, phase: 'pre', signal: () => info.signal },
          settings,
        );
        if (answered.length === 0) return undefined;
        const verdict = combinePre(answered, strict, info.tool, state.args, settings.overrides);
        if (verdict.context.length > 0) pending.set(keyOf(info.call), [...verdict.context]);
        const update: { args?: typeof state.args; decision?: 'allow' | 'deny' | 'ask'; reason?: string } = {};
        if (verdict.args !== undefined) update.args = verdict.args;
        // A hook can tighten what an earlier tap decided, never loosen it: its allow does not undo another tap's ask.
        const loosens = verdict.decision === 'allow' && state.decidedBy !== undefined && state.decision !== 'allow';
        if (verdict.decision !== undefined && !loosens) {
          update.decision = verdict.decision;
          if (verdict.reason !== undefined) update.reason = verdict.reason;
        }
        return update;
      },
    );
  }

  if (post.length > 0 || pre.length > 0) {
    host.hooks.postExecute.tap(
      { name: hooksBridgeName, timeoutMs: deadlineOf(post, settings) },
      async (state): Promise<PostExecuteVerdict | undefined> => {
        const key = keyOf(state.call);
        const early = pending.get(key) ?? [];
        pending.delete(key);
        const end = endOf(state.outcome);
        const tool = state.tool;
        let verdict: ReturnType<typeof combinePost> = { context: [] };
        if (end !== undefined && tool !== undefined && post.length > 0) {
          const answered = await runMatchingHooks(post, { host, call: state.call, tool, args: state.args, phase: 'post', end }, settings);
          verdict = combinePost(answered, strict);
        }
        const context = [...early, ...verdict.context];
        const result: { block?: string; replaceOutput?: JsonValue; addContext?: string } = {};
        if (context.length > 0) result.addContext = context.join('\n\n');
        if (verdict.withhold !== undefined) result.block = verdict.withhold;
        else if (verdict.replaceOutput !== undefined && tool !== undefined) {
          const checked = checkOutput(tool, verdict.replaceOutput.value);
          if (checked.ok) result.replaceOutput = checked.value;
          else settings.report(HookErrorCode.HOOK_OUTPUT_REJECTED, `${verdict.replaceOutput.by}: ${checked.message}`, state.call.id);
        }
        return Object.keys(result).length === 0 ? undefined : result;
      },
    );
    // A call that never reached post-execute must not leave its context behind.
    host.hooks.result.tap(hooksBridgeName, (_outcome, info) => {
      pending.delete(keyOf(info.call));
    });
  }
}

/** The tap's deadline: the slowest hook's timeout plus the time to kill it, so core never cuts a hook short. */
function deadlineOf(hooks: readonly HookSpec[], settings: RunSettings): number {
  const slowest = hooks.reduce((max, h) => Math.max(max, h.timeoutMs), 0);
  return slowest + settings.killGraceMs + settings.drainMs + tapSlackMs;
}

/** Only an outcome the body produced fires post hooks: success, or failure. */
function endOf(outcome: Outcome): CallEnd | undefined {
  if (outcome.stage !== 'execute' && outcome.stage !== 'post-execute') return undefined;
  if (outcome.status === 'ok') return { kind: 'success', output: outcome.output };
  if (outcome.status === 'error') return { kind: 'failure', error: outcome.error };
  return undefined;
}

function checkOutput(tool: AnyToolDefinition, value: unknown): { ok: true; value: JsonValue } | { ok: false; message: string } {
  if (value === undefined) return { ok: false, message: 'updatedToolOutput is undefined' };
  if (tool.output === undefined) return { ok: true, value: value as JsonValue };
  const parsed = (tool.output as z.ZodType).safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data as JsonValue };
  return { ok: false, message: `updatedToolOutput does not pass the output schema of "${tool.name}", so it was ignored` };
}

function reportProblems(host: Host, problems: readonly HookConfigProblem[]): void {
  if (problems.length === 0) return;
  try {
    host.events.define('hooks-bridge/config-problem', z.object({ source: z.string(), entry: z.string(), message: z.string() }));
  } catch {
    // Already defined by an earlier host.use of this plugin on the same host: not possible (names are unique), but harmless.
  }
  for (const p of problems) {
    const where = p.entry === '' ? p.source : `${p.source} ${p.entry}`;
    host.diagnostics.record(HookErrorCode.HOOK_CONFIG_INVALID, hooksBridgeName, `${where}: ${p.message}`);
    void host.events
      .emit('hooks-bridge/config-problem', { source: p.source, entry: p.entry, message: p.message })
      .catch((error: unknown) => {
        host.diagnostics.record('HOOK_EVENT_FAILED', hooksBridgeName, `config problem was not logged: ${(error as Error).message}`);
      });
  }
}

function configDenial(problems: readonly HookConfigProblem[]): string {
  const list = problems.map((p) => `${p.entry === '' ? p.source : `${p.source} ${p.entry}`}: ${p.message}`).join('; ');
  return `hooks-bridge is strict and the hook configuration has errors, so no call may run: ${list}`;
}

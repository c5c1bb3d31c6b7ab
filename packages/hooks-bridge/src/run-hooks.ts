import type { AnyToolDefinition, Args, CallIdentity, Host } from '@deepseek-ai/dsh-core';
import { exactJsonText } from '@deepseek-ai/dsh-core';
import { claudeDialect } from './claude-dialect.js';
import type { AnsweredHook } from './combine.js';
import { copilotDialect } from './copilot-dialect.js';
import { geminiDialect } from './gemini-dialect.js';
import type { CallEnd, HookAnswer, HookDialectAdapter, InterpretOptions } from './hook-answer.js';
import type { HookDialect, HookPhase, HookSpec } from './hook-spec.js';
import type { IfRuleContext } from './if-rule.js';
import type { HookRunRecord } from './options.js';
import { type HookProcessResult, runHookProcess } from './spawn-hook.js';
import { type ExternalOverrides, type ExternalView, toExternal } from './tool-names.js';

const adapters: Readonly<Record<HookDialect, HookDialectAdapter>> = {
  claude: claudeDialect,
  gemini: geminiDialect,
  copilot: copilotDialect,
};

/** How long stderr may be in a `hook/result` event. */
const stderrExcerptChars = 2_000;
/** How much of each stream a hook may print before the rest is dropped. */
const maxOutputBytes = 4 * 1024 * 1024;

/** Settings fixed when the plugin registers. */
export interface RunSettings {
  readonly projectDir: string;
  readonly homeDir: string;
  readonly cwd: string;
  readonly transcriptPath: string | null;
  readonly permissionMode: string;
  readonly env: Readonly<Record<string, string>>;
  readonly killGraceMs: number;
  readonly drainMs: number;
  readonly interpret: InterpretOptions;
  readonly overrides: ExternalOverrides;
  /** Where failures that change no outcome go (an event the sink could not take). */
  readonly report: (code: string, message: string, call?: string) => void;
  /** Told of every run in full (the `onHookRun` option). */
  readonly onRun?: ((run: HookRunRecord) => void) | undefined;
}

/** One call's view for its hooks. */
export interface HookCall {
  readonly host: Host;
  readonly call: CallIdentity;
  readonly tool: AnyToolDefinition;
  readonly args: Args;
  readonly phase: HookPhase;
  readonly end?: CallEnd;
  /**
   * The call's abort signal, asked for only when a hook starts: core makes the signal on first use,
   * and making one costs more than a call whose hooks all skip.
   */
  readonly signal?: () => AbortSignal;
}

/**
 * Runs every hook of `hooks` that matches the call: all at once, identical
 * commands once, each as its own process group. Logs `hook/invoked` before
 * each start and `hook/result` after each end. Resolves with the answers in
 * configuration order. Claude's `async` hooks are started and not waited for.
 */
export async function runMatchingHooks(hooks: readonly HookSpec[], call: HookCall, settings: RunSettings): Promise<AnsweredHook[]> {
  const views = new Map<HookDialect, ExternalView>();
  const viewOf = (dialect: HookDialect): ExternalView => {
    let view = views.get(dialect);
    if (view === undefined) {
      view = toExternal(call.tool, dialect, call.args, settings.overrides);
      views.set(dialect, view);
    }
    return view;
  };
  const where: IfRuleContext = { projectDir: settings.projectDir, cwd: settings.cwd, homeDir: settings.homeDir };
  const runs = new Map<string, { spec: HookSpec; failClosed: boolean; duplicates: string[] }>();
  for (const spec of hooks) {
    if (spec.phase !== call.phase || !firesOn(spec, call.end)) continue;
    const view = viewOf(spec.dialect);
    if (!spec.matcher.test(view.name)) continue;
    if (spec.ifRule !== undefined && !spec.ifRule.test(view.name, view.input, where)) continue;
    const key = exactJsonText([
      spec.dialect,
      spec.payloadStyle,
      spec.event,
      spec.shell,
      spec.command,
      spec.args ?? null,
      spec.cwd ?? null,
      spec.env,
      spec.async,
    ]);
    const seen = runs.get(key);
    if (seen === undefined) runs.set(key, { spec, failClosed: spec.failClosed, duplicates: [] });
    else {
      seen.duplicates.push(spec.id);
      seen.failClosed ||= spec.failClosed;
    }
  }
  const selected = [...runs.values()];
  if (selected.length === 0) return [];
  await Promise.all(selected.map(({ spec, duplicates }) => logInvoked(call, spec, viewOf(spec.dialect).name, duplicates, settings)));
  const waited = selected.filter((r) => !r.spec.async);
  for (const background of selected.filter((r) => r.spec.async)) {
    void runOne(background.spec, call, viewOf(background.spec.dialect), settings, false);
  }
  const answers = await Promise.all(waited.map((r) => runOne(r.spec, call, viewOf(r.spec.dialect), settings, true)));
  return waited.map((r, i) => ({ spec: r.spec, failClosed: r.failClosed, answer: answers[i] as HookAnswer }));
}

function firesOn(spec: HookSpec, end: CallEnd | undefined): boolean {
  if (spec.phase === 'pre' || end === undefined) return spec.phase === 'pre';
  return spec.on === 'both' || spec.on === (end.kind === 'success' ? 'success' : 'failure');
}

async function runOne(spec: HookSpec, call: HookCall, view: ExternalView, settings: RunSettings, followCall: boolean): Promise<HookAnswer> {
  const adapter = adapters[spec.dialect];
  const payload = adapter.payload({
    spec,
    session: call.host.session,
    cwd: settings.cwd,
    transcriptPath: settings.transcriptPath,
    permissionMode: settings.permissionMode,
    callId: call.call.id,
    toolName: view.name,
    toolInput: view.input,
    ...(call.end === undefined ? {} : { end: call.end }),
  });
  // A subagent's call carries its identity under Claude Code's names, so scripts can tell it from the main agent's.
  const agent = call.call.agent;
  if (agent !== undefined && spec.dialect === 'claude') {
    payload.agent_id = agent.id;
    payload.agent_type = agent.type;
  }
  const stdin = `${exactJsonText(payload)}\n`;
  const run = await runHookProcess({
    command: spec.args === undefined ? spec.command : substitute(spec.command, settings),
    args: spec.args?.map((a) => substitute(a, settings)),
    shell: spec.shell,
    cwd: spec.cwd ?? settings.cwd,
    env: environmentOf(spec, settings),
    stdin,
    timeoutMs: spec.timeoutMs,
    killGraceMs: settings.killGraceMs,
    drainMs: settings.drainMs,
    maxOutputBytes,
    signal: followCall ? call.signal?.() : undefined,
  });
  const answer = adapter.interpret(spec, run, settings.interpret);
  if (settings.onRun !== undefined) tellRun(settings, spec, call, stdin, run, decisionOf(answer));
  const data = {
    hook: spec.id,
    event: spec.event,
    exitCode: run.exitCode,
    signal: run.signal,
    durationMs: Math.round(run.durationMs * 1000) / 1000,
    timedOut: run.timedOut,
    ...(decisionOf(answer) === undefined ? {} : { decision: decisionOf(answer) }),
    ...(answer.failure === undefined ? {} : { error: answer.failure.message, errorCode: answer.failure.code }),
    ...(answer.systemMessage === undefined ? {} : { systemMessage: answer.systemMessage }),
    ...(run.stderr === '' ? {} : { stderr: run.stderr.slice(0, stderrExcerptChars) }),
    ...(spec.async ? { async: true } : {}),
  };
  await call.host.events.emit('hook/result', data, call.call).catch((error: unknown) => {
    settings.report('HOOK_EVENT_FAILED', `hook/result of ${spec.id} was not logged: ${(error as Error).message}`, call.call.id);
  });
  return answer;
}

function tellRun(
  settings: RunSettings,
  spec: HookSpec,
  call: HookCall,
  stdin: string,
  run: HookProcessResult,
  decision: string | undefined,
): void {
  try {
    settings.onRun?.({
      call: call.call.id,
      hook: spec.id,
      event: spec.event,
      command: spec.args === undefined ? spec.command : [spec.command, ...spec.args].join(' '),
      stdin,
      stdout: run.stdout,
      stderr: run.stderr,
      exitCode: run.exitCode,
      signal: run.signal,
      timedOut: run.timedOut,
      durationMs: run.durationMs,
      ...(decision === undefined ? {} : { decision }),
    });
  } catch (error) {
    settings.report('HOOK_OBSERVER_FAILED', `onHookRun threw for ${spec.id}: ${(error as Error).message}`, call.call.id);
  }
}

function logInvoked(call: HookCall, spec: HookSpec, toolName: string, duplicates: readonly string[], settings: RunSettings): Promise<void> {
  const data = {
    hook: spec.id,
    event: spec.event,
    source: spec.source,
    dialect: spec.dialect,
    command: spec.args === undefined ? spec.command : [spec.command, ...spec.args].join(' '),
    call: call.call.id,
    tool: toolName,
    ...(duplicates.length === 0 ? {} : { duplicates: [...duplicates] }),
  };
  return call.host.events.emit('hook/invoked', data, call.call).catch((error: unknown) => {
    settings.report('HOOK_EVENT_FAILED', `hook/invoked of ${spec.id} was not logged: ${(error as Error).message}`, call.call.id);
  });
}

function decisionOf(answer: HookAnswer): string | undefined {
  if (answer.decision !== undefined) return answer.decision;
  if (answer.withhold !== undefined) return 'withhold';
  if (answer.feedback !== undefined) return 'feedback';
  if (answer.replaceOutput !== undefined) return 'replace-output';
  if (answer.updatedInput !== undefined) return 'rewrite';
  return undefined;
}

/** Exec form has no shell to expand variables, so the documented placeholders are replaced as text. */
function substitute(text: string, settings: RunSettings): string {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's literal placeholder
  return text.replaceAll('${CLAUDE_PROJECT_DIR}', settings.projectDir);
}

function environmentOf(spec: HookSpec, settings: RunSettings): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, ...settings.env };
  if (spec.dialect === 'claude') env.CLAUDE_PROJECT_DIR = settings.projectDir;
  if (spec.dialect === 'gemini') {
    // Gemini CLI sets both, to the session's working directory.
    env.GEMINI_PROJECT_DIR = settings.cwd;
    env.CLAUDE_PROJECT_DIR = settings.cwd;
  }
  return { ...env, ...spec.env };
}

import type { AnyToolDefinition, Args } from '@deepseek-ai/dsh-core';
import type { HookSpec, IfRuleContext } from '@deepseek-ai/dsh-hooks-bridge';

/** How a hook stands toward the sample call, before anything runs. */
export interface MatchExplanation {
  /** True when its matcher (and `if`) match this call, whatever its phase. */
  readonly matches: boolean;
  /** True when the hook runs for this call now (a pre hook that matches). */
  readonly runs: boolean;
  /** The tool's name in the hook's dialect, as its matcher sees it. */
  readonly toolName: string;
  /** The tool input in the hook's dialect: the payload's `tool_input`. */
  readonly toolInput: Record<string, unknown>;
  /** Why it runs or does not, in one sentence. */
  readonly why: string;
}

/**
 * Explains whether `spec` matches a call to `tool` with `args`, as the
 * hooks bridge decides it: the name and input in the hook's dialect come
 * from the tool's own `external` declaration (our name and arguments when it
 * has none for that dialect), then the matcher, then a Claude `if` rule.
 */
export function explainMatch(spec: HookSpec, tool: AnyToolDefinition, args: Args, where: IfRuleContext): MatchExplanation {
  const external = tool.external?.[spec.dialect];
  let toolName = tool.name;
  let toolInput: Record<string, unknown> = { ...args };
  if (external !== undefined) {
    toolName = external.name;
    try {
      toolInput = external.toExternal(args);
    } catch (error) {
      return {
        matches: false,
        runs: false,
        toolName,
        toolInput,
        why: `the tool's ${spec.dialect} mapping failed on this input: ${(error as Error).message}`,
      };
    }
  }
  const named = external === undefined ? `"${toolName}" (no ${spec.dialect} name is declared, so ours is used)` : `"${toolName}"`;
  const matcher = spec.matcher.text === undefined ? 'no matcher (every tool)' : `matcher ${JSON.stringify(spec.matcher.text)}`;
  if (!spec.matcher.test(toolName)) {
    return { matches: false, runs: false, toolName, toolInput, why: `${matcher} does not match the tool name ${named}` };
  }
  if (spec.ifRule !== undefined && !spec.ifRule.test(toolName, toolInput, where)) {
    return {
      matches: false,
      runs: false,
      toolName,
      toolInput,
      why: `${matcher} matches ${named}, but its "if" ${JSON.stringify(spec.ifRule.text)} does not match this input`,
    };
  }
  const ifText = spec.ifRule === undefined ? '' : ` and "if" ${JSON.stringify(spec.ifRule.text)}`;
  if (spec.phase === 'post') {
    return {
      matches: true,
      runs: false,
      toolName,
      toolInput,
      why: `${matcher}${ifText} would match ${named}, but ${spec.event} runs after the tool's body, and hooks check runs no body`,
    };
  }
  if (spec.async)
    return {
      matches: true,
      runs: true,
      toolName,
      toolInput,
      why: `${matcher}${ifText} matches ${named}; "async": true, so its answer is ignored`,
    };
  return { matches: true, runs: true, toolName, toolInput, why: `${matcher}${ifText} matches ${named}` };
}

/**
 * Why a hook that ran had the effect it had, read from what it printed and
 * how it exited, in Claude Code's terms: exit 2 blocks; other non-zero exits
 * are non-blocking errors; exit 0 with JSON on stdout decides.
 */
export function explainAnswer(run: {
  readonly exitCode: number | null;
  readonly stdout: string | undefined;
  readonly decision: string | undefined;
  readonly error: string | undefined;
  readonly dialect: string;
}): string {
  if (run.exitCode === 2) return 'exit code 2 blocks the call: stderr (or the JSON reason) is the reason';
  if (run.decision !== undefined) return `decided "${run.decision}"`;
  if (run.exitCode !== 0 && run.exitCode !== null) {
    return `exit code ${run.exitCode} is a non-blocking error: the call goes on (only exit 2 blocks, or JSON with a decision)`;
  }
  if (run.error !== undefined) return `no effect: ${run.error}`;
  const out = (run.stdout ?? '').trim();
  if (out === '') return 'exit 0 and nothing on stdout: no decision, the call goes on';
  const start = out.indexOf('{');
  if (start === -1) return 'stdout is not JSON: plain text on stdout is ignored (not shown to the model)';
  let json: unknown;
  try {
    json = JSON.parse(out.slice(start));
  } catch {
    return 'stdout does not end in valid JSON, so it is ignored';
  }
  const specific = (json as { hookSpecificOutput?: { permissionDecision?: unknown } }).hookSpecificOutput;
  if (run.dialect === 'claude' && (specific === undefined || specific.permissionDecision === undefined)) {
    return 'the JSON holds no decision (hookSpecificOutput.permissionDecision: allow, deny or ask), so it does not change the decision';
  }
  return 'the JSON was read but carries no decision';
}

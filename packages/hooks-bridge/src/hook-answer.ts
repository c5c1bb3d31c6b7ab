import type { Decision, OutcomeError } from '@deepseek-ai/dsh-core';
import { HookErrorCode } from './errors.js';
import type { HookSpec } from './hook-spec.js';
import type { HookProcessResult } from './spawn-hook.js';

/** The longest string a hook may hand to the model or the user; longer ones are cut with a note. */
export const maxHookTextChars = 10_000;

/** What one hook run means, whatever its dialect: the input to combination. */
export interface HookAnswer {
  /** Pre hooks: what the hook decided; absent when it did not. */
  readonly decision?: Decision;
  readonly reason?: string;
  /** Pre hooks: rewritten input in the dialect's shape; `merge` goes over the current input (Gemini), `replace` stands alone. */
  readonly updatedInput?: { readonly mode: 'replace' | 'merge'; readonly value: Record<string, unknown> };
  /** Text for the model, in order. */
  readonly context: readonly string[];
  /** Post hooks: a reason shown next to the output, which stays (Claude Code's PostToolUse `block`). */
  readonly feedback?: string;
  /** Post hooks: a reason that replaces the output (Gemini's AfterTool `deny`). */
  readonly withhold?: string;
  /** Post hooks: the output the model should see instead. */
  readonly replaceOutput?: { readonly value: unknown };
  /** For the user, not the model: recorded in the `hook/result` event. */
  readonly systemMessage?: string;
  /** `continue: false`: the hook wants the agent to stop; here it denies (pre) or is added as context (post). */
  readonly stop?: string;
  /** The hook failed: non-blocking unless the hook or the plugin is strict. */
  readonly failure?: { readonly code: HookErrorCode; readonly message: string };
}

/** What a finished call looked like, for post hooks. */
export type CallEnd = { readonly kind: 'success'; readonly output: unknown } | { readonly kind: 'failure'; readonly error: OutcomeError };

/** Everything a dialect needs to build a hook's stdin. */
export interface PayloadInput {
  readonly spec: HookSpec;
  readonly session: string;
  readonly cwd: string;
  readonly transcriptPath: string | null;
  readonly permissionMode: string;
  readonly callId: string;
  /** The tool's name in the hook's dialect. */
  readonly toolName: string;
  /** The arguments in the hook's dialect. */
  readonly toolInput: Record<string, unknown>;
  readonly end?: CallEnd;
}

/** One agent's way of feeding hooks and reading their answers. */
export interface HookDialectAdapter {
  payload(input: PayloadInput): Record<string, unknown>;
  interpret(spec: HookSpec, run: HookProcessResult, options: InterpretOptions): HookAnswer;
}

/** Plugin options that change how answers are read. */
export interface InterpretOptions {
  /** Claude/Copilot post-tool `block`: keep the output and add the reason (`feedback`), or replace it (`withhold`). */
  readonly postBlock: 'feedback' | 'withhold';
}

/** The failure a run ended in before any output could count: could not start, timed out, cancelled, killed. */
export function runFailure(run: HookProcessResult, spec: HookSpec): HookAnswer | undefined {
  if (run.spawnError !== undefined) return failed(HookErrorCode.HOOK_SPAWN_FAILED, `hook could not start: ${run.spawnError}`);
  if (run.timedOut) {
    const doing = run.stuck === undefined ? '' : ` (its process was ${run.stuck})`;
    return failed(HookErrorCode.HOOK_TIMEOUT, `hook did not finish within ${spec.timeoutMs} ms${doing}; its process group was killed`);
  }
  if (run.aborted) return failed(HookErrorCode.HOOK_ABORTED, 'the call was cancelled while the hook ran; its process group was killed');
  if (run.exitCode === null) return failed(HookErrorCode.HOOK_EXIT_NONZERO, `hook was killed by ${run.signal ?? 'a signal'}`);
  return undefined;
}

/** An answer that only reports a failure. */
export function failed(code: HookErrorCode, message: string): HookAnswer {
  return { context: [], failure: { code, message: cap(message) } };
}

/** A non-blocking error for an unexpected exit code, quoting the first line of stderr as Claude Code does. */
export function exitFailure(run: HookProcessResult): HookAnswer {
  const first = run.stderr.trim().split('\n')[0] ?? '';
  return failed(HookErrorCode.HOOK_EXIT_NONZERO, `hook exited with code ${run.exitCode}${first === '' ? '' : `: ${first}`}`);
}

/** Cuts text longer than {@link maxHookTextChars}, saying how much was cut. */
export function cap(text: string): string {
  if (text.length <= maxHookTextChars) return text;
  return `${text.slice(0, maxHookTextChars)}\n[hooks-bridge: ${text.length - maxHookTextChars} more characters cut]`;
}

/** Text of a tool output for dialects that want a string. */
export function outputText(output: unknown, stringify: (value: unknown) => string): string {
  return typeof output === 'string' ? output : stringify(output);
}

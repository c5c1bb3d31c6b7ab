import { z } from '@deepseek-ai/dsh-core';
import { HookErrorCode } from './errors.js';
import {
  type CallEnd,
  cap,
  exitFailure,
  failed,
  type HookAnswer,
  type HookDialectAdapter,
  type InterpretOptions,
  type PayloadInput,
  runFailure,
} from './hook-answer.js';
import type { HookSpec } from './hook-spec.js';
import { issueText } from './internal/config-builder.js';
import { findHookJson } from './internal/json-text.js';
import type { HookProcessResult } from './spawn-hook.js';

const decisionFields = {
  permissionDecision: z.enum(['allow', 'deny', 'ask', 'defer']).optional(),
  permissionDecisionReason: z.string().optional(),
  updatedInput: z.record(z.string(), z.unknown()).optional(),
  additionalContext: z.string().optional(),
};

/** Claude Code's hook output, read leniently: the fields users put at the top level by mistake are accepted too. */
const claudeOutput = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  // Only `approve`/`block` are valid here (Claude Code's schema): `allow`, `deny` and `ask` belong in
  // hookSpecificOutput.permissionDecision, and a typo must not loosen or tighten anything silently.
  decision: z
    .enum(['approve', 'block'], {
      error: (issue) =>
        `the top-level "decision" takes "approve" or "block", not ${JSON.stringify(issue.input)}; ` +
        'put "allow", "deny" or "ask" in hookSpecificOutput.permissionDecision',
    })
    .optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().optional(),
      ...decisionFields,
      updatedToolOutput: z.unknown().optional(),
      updatedMCPToolOutput: z.unknown().optional(),
    })
    .optional(),
  ...decisionFields,
});
type ClaudeOutput = z.infer<typeof claudeOutput>;

/** Claude Code: snake_case payload; 0/2/other exit codes; JSON read on every exit code (current docs). */
export const claudeDialect: HookDialectAdapter = {
  payload(input: PayloadInput): Record<string, unknown> {
    const base: Record<string, unknown> = {
      session_id: input.session,
      transcript_path: input.transcriptPath,
      cwd: input.cwd,
      permission_mode: input.permissionMode,
      hook_event_name: input.spec.event,
      tool_name: input.toolName,
      tool_input: input.toolInput,
      tool_use_id: input.callId,
    };
    return withEnd(base, input.end);
  },

  interpret(spec: HookSpec, run: HookProcessResult, options: InterpretOptions): HookAnswer {
    const early = runFailure(run, spec);
    if (early !== undefined) return early;
    const json = findHookJson(run.stdout);
    const parsed = json.kind === 'object' ? claudeOutput.safeParse(json.value) : undefined;
    if (run.exitCode === 2) {
      // Exit 2 blocks whatever the JSON says; its reason wins over stderr when it gives one.
      const output = parsed?.success === true ? parsed.data : undefined;
      const reason = cap(blockingReason(output) ?? stderrReason(run.stderr) ?? `hook exited with code 2 (${spec.command})`);
      const context = output === undefined ? [] : contextOf(output);
      return spec.phase === 'pre' ? { decision: 'deny', reason, context } : postBlock(reason, context, options);
    }
    if (parsed !== undefined) {
      if (!parsed.success)
        return failed(HookErrorCode.HOOK_BAD_OUTPUT, `hook output does not follow Claude Code's schema: ${issueText(parsed.error.issues)}`);
      return spec.phase === 'pre' ? preAnswer(parsed.data) : postAnswer(parsed.data, options);
    }
    if (json.kind === 'invalid' || json.kind === 'not-object') {
      if (run.exitCode !== 0) return exitFailure(run);
      const why = json.kind === 'invalid' ? json.message : 'it is not a JSON object';
      return failed(HookErrorCode.HOOK_BAD_OUTPUT, `hook output looks like JSON but cannot be read: ${why}`);
    }
    // Plain text on stdout is not shown to the model on tool events.
    return run.exitCode === 0 ? { context: [] } : exitFailure(run);
  },
};

function withEnd(base: Record<string, unknown>, end: CallEnd | undefined): Record<string, unknown> {
  if (end === undefined) return base;
  if (end.kind === 'success') return { ...base, tool_response: end.output };
  return { ...base, error: end.error.message, is_interrupt: end.error.code === 'ABORTED' };
}

function blockingReason(output: ClaudeOutput | undefined): string | undefined {
  if (output === undefined) return undefined;
  const hso = output.hookSpecificOutput;
  return nonEmpty(hso?.permissionDecisionReason) ?? nonEmpty(output.permissionDecisionReason) ?? nonEmpty(output.reason);
}

/** stderr as the reason; when stderr is JSON with a reason field, that field. */
export function stderrReason(stderr: string): string | undefined {
  const text = stderr.trim();
  if (text === '') return undefined;
  const json = findHookJson(text);
  if (json.kind === 'object') {
    const v = json.value;
    const hso =
      typeof v.hookSpecificOutput === 'object' && v.hookSpecificOutput !== null ? (v.hookSpecificOutput as Record<string, unknown>) : {};
    for (const candidate of [hso.permissionDecisionReason, v.permissionDecisionReason, v.reason, v.message]) {
      if (typeof candidate === 'string' && candidate.trim() !== '') return candidate;
    }
  }
  return text;
}

function preAnswer(output: ClaudeOutput): HookAnswer {
  const hso = output.hookSpecificOutput;
  const chosen = hso?.permissionDecision ?? output.permissionDecision ?? legacyDecision(output.decision);
  const decision = chosen === 'defer' ? undefined : chosen;
  const reason = nonEmpty(hso?.permissionDecisionReason) ?? nonEmpty(output.permissionDecisionReason) ?? nonEmpty(output.reason);
  const updated = chosen === 'defer' ? undefined : (hso?.updatedInput ?? output.updatedInput);
  return compact({
    decision,
    reason: reason === undefined ? undefined : cap(reason),
    updatedInput: updated === undefined ? undefined : { mode: 'replace', value: updated },
    context: contextOf(output),
    systemMessage: output.systemMessage === undefined ? undefined : cap(output.systemMessage),
    stop: output.continue === false ? cap(output.stopReason ?? 'a hook asked to stop') : undefined,
  });
}

function postAnswer(output: ClaudeOutput, options: InterpretOptions): HookAnswer {
  const hso = output.hookSpecificOutput;
  const context = contextOf(output);
  const replacement = hso !== undefined && Object.hasOwn(hso, 'updatedToolOutput') ? hso.updatedToolOutput : hso?.updatedMCPToolOutput;
  const base = compact({
    context,
    replaceOutput: replacement === undefined ? undefined : { value: replacement },
    systemMessage: output.systemMessage === undefined ? undefined : cap(output.systemMessage),
    stop: output.continue === false ? cap(output.stopReason ?? 'a hook asked to stop') : undefined,
  });
  if (output.decision !== 'block') return base;
  return { ...base, ...postBlock(cap(nonEmpty(output.reason) ?? 'blocked by a PostToolUse hook'), context, options) };
}

function postBlock(reason: string, context: readonly string[], options: InterpretOptions): HookAnswer {
  return options.postBlock === 'withhold' ? { context, withhold: reason } : { context, feedback: reason };
}

/** The deprecated top-level `approve`/`block`, which Claude Code maps to allow/deny for PreToolUse. */
function legacyDecision(decision: ClaudeOutput['decision']): 'allow' | 'deny' | undefined {
  if (decision === 'approve') return 'allow';
  if (decision === 'block') return 'deny';
  return undefined;
}

function contextOf(output: ClaudeOutput): string[] {
  const text = output.hookSpecificOutput?.additionalContext ?? output.additionalContext;
  return text === undefined || text === '' ? [] : [cap(text)];
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text;
}

/** Drops keys whose value is undefined, as `exactOptionalPropertyTypes` wants. */
export function compact<T extends object>(value: { [K in keyof T]: T[K] | undefined }): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as T;
}

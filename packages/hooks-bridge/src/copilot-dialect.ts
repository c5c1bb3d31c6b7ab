import { exactJsonText, z } from '@deepseek-ai/dsh-core';
import { compact } from './claude-dialect.js';
import { HookErrorCode } from './errors.js';
import {
  cap,
  exitFailure,
  failed,
  type HookAnswer,
  type HookDialectAdapter,
  outputText,
  type PayloadInput,
  runFailure,
} from './hook-answer.js';
import type { HookSpec } from './hook-spec.js';
import { issueText } from './internal/config-builder.js';
import { findHookJson } from './internal/json-text.js';
import type { HookProcessResult } from './spawn-hook.js';

const decision = {
  permissionDecision: z.enum(['allow', 'deny', 'ask']).optional(),
  permissionDecisionReason: z.string().optional(),
  additionalContext: z.string().optional(),
};
const copilotOutput = z.looseObject({
  ...decision,
  modifiedArgs: z.record(z.string(), z.unknown()).optional(),
  // The VS Code-compatible form wraps the same answer the way Claude Code does.
  hookSpecificOutput: z.looseObject({ ...decision, updatedInput: z.record(z.string(), z.unknown()).optional() }).optional(),
});

/**
 * Copilot CLI: camelCase payload (`toolArgs` as JSON text, `timestamp` in
 * ms) for camelCase events, VS Code-compatible snake_case for PascalCase
 * ones. JSON is read on exit 0; any other exit is logged and skipped, never
 * blocking, except that a failed call's hook exiting 2 hands its stderr to
 * the model as recovery guidance. postToolUse output is ignored, as the CLI
 * documents for command hooks.
 */
export const copilotDialect: HookDialectAdapter = {
  payload(input: PayloadInput): Record<string, unknown> {
    const end = input.end;
    if (input.spec.payloadStyle === 'camel') {
      const base: Record<string, unknown> = {
        sessionId: input.session,
        timestamp: Date.now(),
        cwd: input.cwd,
        toolName: input.toolName,
        toolArgs: exactJsonText(input.toolInput),
      };
      if (end === undefined) return base;
      if (end.kind === 'failure') return { ...base, error: end.error.message };
      return { ...base, toolResult: { resultType: 'success', textResultForLlm: outputText(end.output, exactJsonText) } };
    }
    const base: Record<string, unknown> = {
      hook_event_name: input.spec.event,
      session_id: input.session,
      timestamp: new Date().toISOString(),
      cwd: input.cwd,
      tool_name: input.toolName,
      tool_input: input.toolInput,
    };
    if (end === undefined) return base;
    if (end.kind === 'failure') return { ...base, error: end.error.message };
    return { ...base, tool_result: { result_type: 'success', text_result_for_llm: outputText(end.output, exactJsonText) } };
  },

  interpret(spec: HookSpec, run: HookProcessResult): HookAnswer {
    const early = runFailure(run, spec);
    if (early !== undefined) return early;
    const failureHook = spec.phase === 'post' && spec.on === 'failure';
    if (run.exitCode === 2 && failureHook) {
      const guidance = run.stderr.trim();
      return { context: guidance === '' ? [] : [cap(guidance)] };
    }
    if (run.exitCode !== 0) return exitFailure(run);
    if (spec.phase === 'post' && !failureHook) return { context: [] };
    const json = findHookJson(run.stdout);
    if (json.kind === 'none') return { context: [] };
    if (json.kind !== 'object') return failed(HookErrorCode.HOOK_BAD_OUTPUT, 'hook output looks like JSON but is not a JSON object');
    const parsed = copilotOutput.safeParse(json.value);
    if (!parsed.success)
      return failed(HookErrorCode.HOOK_BAD_OUTPUT, `hook output does not follow Copilot CLI's schema: ${issueText(parsed.error.issues)}`);
    const out = parsed.data;
    const hso = out.hookSpecificOutput;
    const context = [hso?.additionalContext ?? out.additionalContext].filter((t): t is string => t !== undefined && t !== '').map(cap);
    if (failureHook) return { context };
    const chosen = hso?.permissionDecision ?? out.permissionDecision;
    const reason = hso?.permissionDecisionReason ?? out.permissionDecisionReason;
    const args = out.modifiedArgs ?? hso?.updatedInput;
    return compact<HookAnswer>({
      decision: chosen,
      reason: reason === undefined || reason.trim() === '' ? (chosen === 'deny' ? 'denied by a preToolUse hook' : undefined) : cap(reason),
      updatedInput: args === undefined ? undefined : { mode: 'replace', value: args },
      context,
    });
  },
};

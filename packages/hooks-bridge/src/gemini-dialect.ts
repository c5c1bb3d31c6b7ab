import { exactJsonText, z } from '@deepseek-ai/dsh-core';
import { compact, stderrReason } from './claude-dialect.js';
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

const geminiOutput = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  decision: z.enum(['ask', 'block', 'deny', 'approve', 'allow']).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().optional(),
      tool_input: z.record(z.string(), z.unknown()).optional(),
      tool_output: z.unknown().optional(),
      additionalContext: z.string().optional(),
    })
    .optional(),
});

/**
 * Gemini CLI: snake_case payload with an ISO `timestamp`; JSON read on exit
 * 0 only (a JSON string holding JSON is decoded twice); exit 2 denies with
 * stderr; other codes are warnings. `tool_input` merges over the arguments.
 * BeforeTool runs after confirmation in Gemini, so its `allow` cannot
 * approve anything: here it leaves the decision as it was.
 */
export const geminiDialect: HookDialectAdapter = {
  payload(input: PayloadInput): Record<string, unknown> {
    const base: Record<string, unknown> = {
      session_id: input.session,
      transcript_path: input.transcriptPath,
      cwd: input.cwd,
      hook_event_name: input.spec.event,
      timestamp: new Date().toISOString(),
      tool_name: input.toolName,
      tool_input: input.toolInput,
    };
    const end = input.end;
    if (end === undefined) return base;
    const response =
      end.kind === 'success'
        ? { llmContent: outputText(end.output, exactJsonText), returnDisplay: outputText(end.output, exactJsonText) }
        : { llmContent: end.error.message, returnDisplay: end.error.message, error: { message: end.error.message, type: end.error.code } };
    return { ...base, tool_response: response };
  },

  interpret(spec: HookSpec, run: HookProcessResult): HookAnswer {
    const early = runFailure(run, spec);
    if (early !== undefined) return early;
    if (run.exitCode === 2) {
      const reason = cap(stderrReason(run.stderr) ?? `hook exited with code 2 (${spec.command})`);
      return spec.phase === 'pre' ? { decision: 'deny', reason, context: [] } : { withhold: reason, context: [] };
    }
    if (run.exitCode !== 0) return exitFailure(run);
    const json = findHookJson(run.stdout, true);
    // Plain text becomes a message for the user in Gemini; nothing the model sees.
    if (json.kind === 'none' || json.kind === 'invalid') return compact<HookAnswer>({ context: [], systemMessage: plainText(run.stdout) });
    if (json.kind === 'not-object') return failed(HookErrorCode.HOOK_BAD_OUTPUT, 'hook output is JSON but not an object');
    const parsed = geminiOutput.safeParse(json.value);
    if (!parsed.success)
      return failed(HookErrorCode.HOOK_BAD_OUTPUT, `hook output does not follow Gemini CLI's schema: ${issueText(parsed.error.issues)}`);
    const out = parsed.data;
    const hso = out.hookSpecificOutput;
    const denied = out.decision === 'deny' || out.decision === 'block';
    const reason = out.reason === undefined || out.reason.trim() === '' ? undefined : cap(out.reason);
    const context = hso?.additionalContext === undefined || hso.additionalContext === '' ? [] : [cap(hso.additionalContext)];
    const common = {
      context,
      systemMessage: out.systemMessage === undefined ? undefined : cap(out.systemMessage),
      stop: out.continue === false ? cap(out.stopReason ?? 'a hook asked to stop') : undefined,
    };
    if (spec.phase === 'pre') {
      return compact<HookAnswer>({
        ...common,
        decision: denied ? 'deny' : out.decision === 'ask' ? 'ask' : undefined,
        reason: denied ? (reason ?? 'denied by a BeforeTool hook') : reason,
        updatedInput: hso?.tool_input === undefined ? undefined : { mode: 'merge', value: hso.tool_input },
      });
    }
    return compact<HookAnswer>({
      ...common,
      withhold: denied ? (reason ?? 'withheld by an AfterTool hook') : undefined,
      replaceOutput: hso !== undefined && Object.hasOwn(hso, 'tool_output') ? { value: hso.tool_output } : undefined,
    });
  },
};

function plainText(stdout: string): string | undefined {
  const text = stdout.trim();
  return text === '' ? undefined : cap(text);
}

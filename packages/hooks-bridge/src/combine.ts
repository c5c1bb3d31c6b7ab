import type { AnyToolDefinition, Args, Decision } from '@deepseek-ai/dsh-core';
import type { HookAnswer } from './hook-answer.js';
import type { HookSpec } from './hook-spec.js';
import { type ExternalOverrides, fromExternal, toExternal } from './tool-names.js';

/** One hook's run, in configuration order. */
export interface AnsweredHook {
  readonly spec: HookSpec;
  /** The strictest failure policy of this hook and its de-duplicated copies. */
  readonly failClosed: boolean;
  readonly answer: HookAnswer;
}

/** What every pre hook of a call decided together. */
export interface PreVerdict {
  readonly decision?: Decision;
  readonly reason?: string;
  /** Rewritten arguments, in our shape. */
  readonly args?: Args;
  readonly context: readonly string[];
}

const rank: Readonly<Record<Decision, number>> = { allow: 1, ask: 2, deny: 3 };

/**
 * Combines pre hooks deterministically: deny > ask > allow; the reasons of
 * the winning decision joined in configuration order; of several rewrites,
 * the last in configuration order wins (never the last to finish), and none
 * applies when the call is denied; every context kept, in order. A failure
 * denies when the plugin is strict or the hook says `onFailure: "block"`.
 */
export function combinePre(
  hooks: readonly AnsweredHook[],
  strict: boolean,
  tool: AnyToolDefinition,
  args: Args,
  overrides: ExternalOverrides,
): PreVerdict {
  const votes: { decision: Decision; reason: string | undefined }[] = [];
  const context: string[] = [];
  let rewrite: { spec: HookSpec; value: HookAnswer['updatedInput'] } | undefined;
  for (const { spec, failClosed, answer } of hooks) {
    context.push(...answer.context);
    if (answer.failure !== undefined && (strict || failClosed)) {
      votes.push({ decision: 'deny', reason: `hook ${spec.id} failed, and failures deny: ${answer.failure.message}` });
    }
    if (answer.stop !== undefined) votes.push({ decision: 'deny', reason: answer.stop });
    if (answer.decision !== undefined) votes.push({ decision: answer.decision, reason: answer.reason });
    if (answer.updatedInput !== undefined) rewrite = { spec, value: answer.updatedInput };
  }
  let decision: Decision | undefined;
  for (const vote of votes) if (decision === undefined || rank[vote.decision] > rank[decision]) decision = vote.decision;
  const reasons = votes.filter((v) => v.decision === decision && v.reason !== undefined).map((v) => v.reason as string);
  const verdict: { decision?: Decision; reason?: string; args?: Args; context: string[] } = { context };
  if (decision !== undefined) verdict.decision = decision;
  if (reasons.length > 0) verdict.reason = [...new Set(reasons)].join('\n');
  if (rewrite?.value !== undefined && decision !== 'deny') {
    const { mode, value } = rewrite.value;
    const dialect = rewrite.spec.dialect;
    const external = mode === 'merge' ? { ...toExternal(tool, dialect, args, overrides).input, ...value } : value;
    verdict.args = fromExternal(tool, dialect, external, overrides);
  }
  return verdict;
}

/** What every post hook of a call decided together. */
export interface PostVerdict {
  /** The output is replaced by this reason. */
  readonly withhold?: string;
  readonly replaceOutput?: { readonly value: unknown; readonly by: string };
  readonly context: readonly string[];
}

/**
 * Combines post hooks: any withhold wins and their reasons are joined; of
 * several replacements the last in configuration order wins; feedback and
 * context are kept in configuration order. A failure withholds the output
 * when the plugin is strict or the hook says `onFailure: "block"`.
 */
export function combinePost(hooks: readonly AnsweredHook[], strict: boolean): PostVerdict {
  const withheld: string[] = [];
  const context: string[] = [];
  let replacement: { value: unknown; by: string } | undefined;
  for (const { spec, failClosed, answer } of hooks) {
    if (answer.failure !== undefined && (strict || failClosed)) {
      withheld.push(`hook ${spec.id} failed, and failures block: ${answer.failure.message}`);
    }
    if (answer.withhold !== undefined) withheld.push(answer.withhold);
    if (answer.feedback !== undefined) context.push(answer.feedback);
    context.push(...answer.context);
    if (answer.stop !== undefined) context.push(`A hook asked the agent to stop: ${answer.stop}`);
    if (answer.replaceOutput !== undefined) replacement = { value: answer.replaceOutput.value, by: spec.id };
  }
  const verdict: { withhold?: string; replaceOutput?: { value: unknown; by: string }; context: string[] } = { context };
  if (withheld.length > 0) verdict.withhold = withheld.join('\n');
  else if (replacement !== undefined) verdict.replaceOutput = replacement;
  return verdict;
}

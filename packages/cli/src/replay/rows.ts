import type { CallResult } from '@deepseek-ai/dsh-core';
import { codeOf } from '../render/cards.js';
import { DRY_RUN_CODE, type RecordedDecision } from './dry-run.js';
import type { RecordedCall } from './transcript.js';

/**
 * What the replay's approval prompt says when told to answer no; the table
 * says `ask→rejected` and the header says how approvals were answered, so
 * rows leave this out rather than repeat it.
 */
export const replayRejection = 'dsh replay answers every approval with "deny" (--approval deny)';

/** What the policies decided for one recorded call. */
export type RowDecision = 'allow' | 'ask' | 'deny' | 'error' | 'unmapped';

/** One line of the replay table. */
export interface ReplayRow {
  /** The call's id in the recording. */
  readonly call: string;
  /** The tool's name as recorded (`Bash`). */
  readonly recordedName: string;
  /** The input as recorded, in the recording's vocabulary. */
  readonly input: Readonly<Record<string, unknown>> | string;
  /** Our tool it mapped onto (`bash`); undefined when none did. */
  readonly tool: string | undefined;
  /** The arguments it ran with in our vocabulary; undefined when unmapped. */
  readonly args: Readonly<Record<string, unknown>> | string | undefined;
  /** What the call acts on, for the table: a file path, a command, a URL, a pattern; undefined when none. */
  readonly target: string | undefined;
  readonly decision: RowDecision;
  /** True when the approval provider was asked about it. */
  readonly asked: boolean;
  /** The approval's answer, when asked. */
  readonly approval: 'allowed' | 'rejected' | undefined;
  /** The stage that decided: `pre-execute`, `approval`, `guard`, `validate`, `execute`, `mapping`. */
  readonly stage: string;
  /** Who decided within the stage: a tap, a guard, a gate handler, `default` for the host's default decision. */
  readonly by: string;
  /** The outcome's code, when not a plain allow. */
  readonly code: string | undefined;
  readonly reason: string;
  /** With `--execute`: how the body ran (`ok`, `exit 0`, `exit 1`, `error TOOL_TIMEOUT`); undefined when the body refused it (the decision says so). */
  readonly result: string | undefined;
}

/** Turns a call's outcome, the recorded pre-execute state and the approval into a row. */
export function rowOf(
  recorded: RecordedCall,
  tool: string,
  args: Readonly<Record<string, unknown>> | string,
  result: CallResult,
  decided: RecordedDecision | undefined,
  approval: 'allowed' | 'rejected' | undefined,
  executed: boolean,
): ReplayRow {
  const o = result.outcome;
  const base = {
    call: recorded.id,
    recordedName: recorded.name,
    input: recorded.input,
    tool,
    args,
    target: targetOf(args) ?? targetOf(recorded.input),
    asked: approval !== undefined,
    approval,
  };
  const code = codeOf(o);
  const passed = {
    ...base,
    decision: approval !== undefined ? ('ask' as const) : ('allow' as const),
    stage: 'pre-execute',
    by: decided?.decidedBy ?? 'default',
    reason: decided?.reason ?? (decided === undefined ? '' : `the host's default decision (${decided.decision})`),
  };
  if (o.status === 'denied' && o.code === DRY_RUN_CODE) return { ...passed, code: undefined, result: undefined };
  if (o.stage === 'validate' || o.stage === 'step' || o.stage === 'sink') {
    return { ...base, decision: 'error', stage: o.stage, by: o.by ?? o.stage, code, reason: reasonOf(result), result: undefined };
  }
  if (o.status === 'denied' && o.stage === 'approval') {
    // Asked, and the answer was no: the policy that asked is the one to count.
    const reason = o.reason === replayRejection ? (decided?.reason ?? 'asked') : `${decided?.reason ?? 'asked'} → ${o.reason}`;
    return { ...passed, stage: 'approval', code, reason, result: undefined };
  }
  if (o.status === 'denied' && (o.stage === 'pre-execute' || o.stage === 'guard')) {
    return { ...base, decision: 'deny', stage: o.stage, by: o.by ?? o.stage, code, reason: o.reason, result: undefined };
  }
  // The call got through every policy stage and (with --execute) its body ran, or a body-side check refused it.
  if (!executed) return { ...passed, code, result: undefined };
  if (o.status === 'denied' && o.stage === 'execute') {
    return { ...base, decision: 'deny', stage: 'execute', by: o.by ?? 'execute', code, reason: o.reason, result: undefined };
  }
  return { ...passed, code: undefined, result: o.status === 'ok' ? (exitOf(o.output) ?? 'ok') : `${o.status} ${code}` };
}

/** `exit 1` or `killed by SIGKILL` for a command's output (an `ok` command may still have failed); undefined for other tools. */
function exitOf(output: unknown): string | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const { exitCode, signal } = output as { exitCode?: unknown; signal?: unknown };
  if (typeof signal === 'string' && signal !== '') return `killed by ${signal}`;
  return typeof exitCode === 'number' ? `exit ${exitCode}` : undefined;
}

/** A row for a recorded call that no configured tool takes. */
export function unmappedRow(recorded: RecordedCall, reason: string): ReplayRow {
  return {
    call: recorded.id,
    recordedName: recorded.name,
    input: recorded.input,
    tool: undefined,
    args: undefined,
    target: targetOf(recorded.input),
    decision: 'unmapped',
    asked: false,
    approval: undefined,
    stage: 'mapping',
    by: 'dsh replay',
    code: undefined,
    reason,
    result: undefined,
  };
}

function reasonOf(result: CallResult): string {
  const o = result.outcome;
  return o.status === 'error' ? o.error.message : o.status === 'ok' ? '' : o.reason;
}

const targetKeys = ['file_path', 'notebook_path', 'path', 'command', 'url', 'pattern'] as const;

/** The first of `file_path`, `path`, `command`, `url`, `pattern` the arguments have (JSON text is read). */
export function targetOf(args: Readonly<Record<string, unknown>> | string | undefined): string | undefined {
  let object: unknown = args;
  if (typeof args === 'string') {
    try {
      object = JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  if (typeof object !== 'object' || object === null) return undefined;
  for (const key of targetKeys) {
    const value = (object as Record<string, unknown>)[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

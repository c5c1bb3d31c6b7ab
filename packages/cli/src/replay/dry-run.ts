import type { Decision, DeniedOutcome, Host } from '@deepseek-ai/dsh-core';

/** The name of the `tools/execute` tap that keeps bodies from running in a dry run. */
export const dryRunTapName = 'dsh-cli/dry-run';
/** The code of the synthetic outcome a dry run gives every call that got through the policy stages. */
export const DRY_RUN_CODE = 'DRY_RUN';
/** The name of the `tools/pre-execute` tap that records what the waterfall decided. */
export const recorderTapName = 'dsh-cli/replay-recorder';

/**
 * Makes a host a dry run: a `tools/execute` tap at the outermost stage
 * answers every call that got through pre-execute, approval and guards
 * with a synthetic `denied` outcome (code `DRY_RUN`) WITHOUT calling
 * `next`, so no inner tap (timeouts, retries) and no body runs. A denial
 * rather than an `ok` so that nothing downstream mistakes it for output:
 * post-execute hooks (which fire only for outcomes a body produced) do not
 * run, and the session log says plainly that nothing happened.
 */
export function installDryRun(host: Host): () => void {
  return host.hooks.execute.tap(
    { name: dryRunTapName, stage: Number.MIN_SAFE_INTEGER },
    (ctx): DeniedOutcome => ({
      status: 'denied',
      stage: 'execute',
      by: dryRunTapName,
      code: DRY_RUN_CODE,
      reason: `dry run: "${ctx.call.name}" got through every policy stage; its body was not run`,
    }),
  );
}

/** What the pre-execute waterfall ended with for one call. */
export interface RecordedDecision {
  readonly decision: Decision;
  /** The tap that set it; undefined when it is the host's default decision. */
  readonly decidedBy: string | undefined;
  readonly reason: string | undefined;
}

/**
 * Records the final pre-execute state of every call, keyed by call id, with
 * a tap that runs after every other one and changes nothing. A waterfall a
 * tap ended with `deny` never reaches it: the outcome says who denied.
 */
export function installRecorder(host: Host): Map<string, RecordedDecision> {
  const seen = new Map<string, RecordedDecision>();
  host.hooks.preExecute.tap({ name: recorderTapName, stage: Number.MAX_SAFE_INTEGER }, (state) => {
    seen.set(state.call.id, { decision: state.decision, decidedBy: state.decidedBy, reason: state.reason });
    return undefined;
  });
  return seen;
}

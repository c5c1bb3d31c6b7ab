import type { CallInfo, PreExecuteState } from './hooks.js';
import type { Host } from './host.js';
import type { CallIdentity } from './outcome.js';

/** What {@link requireApproval} needs to know. */
export interface RequireApprovalOptions {
  /** The tap's name and the guard's id. */
  readonly name: string;
  /**
   * Whether this call must be put to a person. Return `undefined` at once
   * (synchronously) for calls it never concerns: they then pay nothing.
   */
  wants(state: PreExecuteState, info: CallInfo): boolean | PromiseLike<boolean> | undefined;
  /** The reason the approval request gives; by default `<tool>'s own approval is required`. */
  reason?(call: CallIdentity): string;
}

/**
 * Makes the calls `wants` names need a person's approval, whatever order
 * other taps were registered in: a tap at the last finite stage raises
 * `allow` to `ask` (a `deny` stays), and a guard, which no tap can overrule,
 * denies such a call that reaches the guards allowed by a tap rather than by
 * the person (a tap added later at the same stage, say). This is how a
 * framework tool's own `needsApproval` holds inside the pipeline. Returns the
 * way to remove the tap and the guard.
 */
export function requireApproval(host: Host, options: RequireApprovalOptions): () => void {
  const { name } = options;
  const reasonOf = options.reason ?? ((call: CallIdentity) => `${call.name}'s own approval is required`);
  const wanted = new Set<string>();
  const untap = host.hooks.preExecute.tap({ name, stage: Number.MAX_VALUE }, (state, info) => {
    if (state.decision === 'deny') return undefined;
    const asks = options.wants(state, info);
    if (asks === undefined) return undefined;
    return Promise.resolve(asks).then((yes) => {
      if (yes !== true) return undefined;
      wanted.add(state.call.id);
      if (state.decision === 'ask') return undefined;
      return { decision: 'ask' as const, reason: reasonOf(state.call) };
    });
  });
  const guard = host.guards.register({
    id: name,
    check: ({ call, allowedBy }) => {
      if (!wanted.delete(call.id) || allowedBy === 'approval') return 'abstain';
      return { deny: `${reasonOf(call)}, but a pre-execute tap allowed the call without asking` };
    },
  });
  // A call denied before the guards never reaches them: forget it with its result.
  const forget = host.hooks.result.tap(`${name}-forget`, (_outcome, { call }) => void wanted.delete(call.id));
  return () => {
    untap();
    guard.remove();
    forget();
  };
}

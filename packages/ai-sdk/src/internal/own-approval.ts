import type { CallIdentity, Host } from '@deepseek-ai/dsh-core';
import type { FrameworkTool } from '../framework-tools.js';
import type { SdkCallOptions } from '../sdk-types.js';

/** The pre-execute tap's name and the guard's id: both are the adapter's. */
export const ownApprovalName = 'ai-sdk/own-approval';

type NeedsApproval = boolean | ((input: unknown, options: SdkCallOptions) => boolean | PromiseLike<boolean>);

/**
 * Makes an SDK tool's own `needsApproval` an `ask` that no pre-execute tap
 * can lower. The tap runs last (the highest finite stage) and raises `allow`
 * to `ask`; the guard is the backstop: a call the tool wanted approved that
 * reaches the guards allowed by a tap, not by the person, is denied.
 * Returns the way to remove both.
 */
export function enforceOwnApproval(
  host: Host,
  tools: Readonly<Record<string, FrameworkTool>>,
  sdkOptionsOf: (call: CallIdentity) => SdkCallOptions | undefined,
): () => void {
  const own = new Map<string, NeedsApproval>();
  for (const [name, tool] of Object.entries(tools)) {
    const needs = tool.needsApproval as NeedsApproval | undefined;
    if (needs !== undefined && needs !== false) own.set(name, needs);
  }
  if (own.size === 0) return () => {};
  const wanted = new Set<string>();
  // Synchronous for every other tool: a dsh tool's call pays nothing for this tap.
  const untap = host.hooks.preExecute.tap({ name: ownApprovalName, stage: Number.MAX_VALUE }, (state) => {
    const needs = own.get(state.call.name);
    if (needs === undefined || state.decision === 'deny') return undefined;
    const sdk = sdkOptionsOf(state.call) ?? {};
    const asks =
      typeof needs === 'function' ? needs(state.args, { ...sdk, toolCallId: state.call.id, messages: sdk.messages ?? [] }) : needs;
    return Promise.resolve(asks).then((yes) => {
      if (yes !== true) return undefined;
      wanted.add(state.call.id);
      if (state.decision === 'ask') return undefined;
      return { decision: 'ask' as const, reason: `${state.call.name}'s own needsApproval asked for approval` };
    });
  });
  const guard = host.guards.register({
    id: ownApprovalName,
    check: ({ call, allowedBy }) => {
      if (!wanted.delete(call.id) || allowedBy === 'approval') return 'abstain';
      return { deny: `${call.name}'s own needsApproval asked for approval, but a pre-execute tap allowed the call without asking` };
    },
  });
  // A call denied before the guards never reaches them: forget it with its result.
  const forget = host.hooks.result.tap(`${ownApprovalName}-forget`, (_outcome, { call }) => void wanted.delete(call.id));
  return () => {
    untap();
    guard.remove();
    forget();
  };
}

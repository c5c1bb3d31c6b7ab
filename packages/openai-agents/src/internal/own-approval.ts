import type { Host } from '@deepseek-ai/dsh-core';
import { type FunctionTool, RunContext } from '@openai/agents-core';

/** The pre-execute tap's name and the guard's id: both are the bridge's. */
export const ownApprovalName = 'openai-agents';

/**
 * Makes a wrapped SDK tool's own `needsApproval` hold whatever order taps
 * were registered in. The tap runs last (the highest finite stage), so a
 * policy tap that allows the call cannot come after it at the same stage, and
 * raises `allow` to `ask`. The guard is the backstop: a call the tool wanted
 * approved that reaches the guards allowed by a tap, not by the person, is denied.
 * Calls in `refused` (a tool the agent was not given) are denied by the guard too.
 */
export function enforceOwnApproval(
  host: Host,
  // biome-ignore lint/suspicious/noExplicitAny: any SDK function tool.
  wrapped: ReadonlyMap<string, FunctionTool<any, any, any>>,
  runContextOf: (callId: string) => RunContext<unknown> | undefined,
  refused: Map<string, string>,
): void {
  const wanted = new Set<string>();
  // Synchronous for every other tool: a dsh tool's call pays nothing for this tap.
  host.hooks.preExecute.tap({ name: ownApprovalName, stage: Number.MAX_VALUE }, (state) => {
    const own = wrapped.get(state.call.name);
    if (own === undefined || state.decision === 'deny') return undefined;
    const runContext = runContextOf(state.call.id) ?? new RunContext();
    return own.needsApproval(runContext, state.args as never, state.call.id).then((asks) => {
      if (!asks) return undefined;
      wanted.add(state.call.id);
      if (state.decision === 'ask') return undefined;
      return { decision: 'ask' as const, reason: `${state.call.name}'s own needsApproval asked for approval` };
    });
  });
  host.guards.register({
    id: ownApprovalName,
    check: ({ call, allowedBy }) => {
      const refusal = refused.get(call.id);
      if (refusal !== undefined) return { deny: refusal };
      if (!wanted.delete(call.id) || allowedBy === 'approval') return 'abstain';
      return { deny: `${call.name}'s own needsApproval asked for approval, but a pre-execute tap allowed the call without asking` };
    },
  });
  // A call denied before the guards never reaches them: forget it with its result.
  host.hooks.result.tap(`${ownApprovalName}-forget`, (_outcome, { call }) => {
    wanted.delete(call.id);
    refused.delete(call.id);
  });
}

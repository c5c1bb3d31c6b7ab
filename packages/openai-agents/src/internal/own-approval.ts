import { type Host, requireApproval } from '@deepseek-ai/dsh-core';
import { type FunctionTool, RunContext } from '@openai/agents-core';

/** The pre-execute tap's name and the guard's id: both are the bridge's. */
export const ownApprovalName = 'openai-agents';

/**
 * Makes a wrapped SDK tool's own `needsApproval` hold whatever order taps
 * were registered in (core's `requireApproval`: a last-stage tap, and a
 * guard as the backstop). Calls in `refused` (a tool the agent was not
 * given) are denied by a guard of the bridge's own.
 */
export function enforceOwnApproval(
  host: Host,
  // biome-ignore lint/suspicious/noExplicitAny: any SDK function tool.
  wrapped: ReadonlyMap<string, FunctionTool<any, any, any>>,
  runContextOf: (callId: string) => RunContext<unknown> | undefined,
  refused: Map<string, string>,
): void {
  // The refusal first: a call the agent was not given is refused with that reason.
  host.guards.register({
    id: `${ownApprovalName}/refused`,
    check: ({ call }) => {
      const refusal = refused.get(call.id);
      return refusal === undefined ? 'abstain' : { deny: refusal };
    },
  });
  requireApproval(host, {
    name: ownApprovalName,
    reason: (call) => `${call.name}'s own needsApproval asked for approval`,
    // Synchronous for every other tool: a dsh tool's call pays nothing for this tap.
    wants: (state) => {
      const own = wrapped.get(state.call.name);
      if (own === undefined) return undefined;
      return own.needsApproval(runContextOf(state.call.id) ?? new RunContext(), state.args as never, state.call.id);
    },
  });
  // A call denied before the guards never reaches them: forget it with its result.
  host.hooks.result.tap(`${ownApprovalName}-refused-forget`, (_outcome, { call }) => void refused.delete(call.id));
}

import { type CallIdentity, type Host, requireApproval } from '@deepseek-ai/dsh-core';
import type { FrameworkTool } from '../framework-tools.js';
import type { SdkCallOptions } from '../sdk-types.js';

/** The pre-execute tap's name and the guard's id: both are the adapter's. */
export const ownApprovalName = 'ai-sdk/own-approval';

type NeedsApproval = boolean | ((input: unknown, options: SdkCallOptions) => boolean | PromiseLike<boolean>);

/**
 * Makes an SDK tool's own `needsApproval` an `ask` that no pre-execute tap
 * can lower (core's `requireApproval`: a last-stage tap, and a guard as the
 * backstop). Returns the way to remove both.
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
  return requireApproval(host, {
    name: ownApprovalName,
    reason: (call) => `${call.name}'s own needsApproval asked for approval`,
    // Synchronous for every other tool: a dsh tool's call pays nothing for this tap.
    wants: (state) => {
      const needs = own.get(state.call.name);
      if (needs === undefined) return undefined;
      if (typeof needs !== 'function') return needs;
      const sdk = sdkOptionsOf(state.call) ?? {};
      return needs(state.args, { ...sdk, toolCallId: state.call.id, messages: sdk.messages ?? [] });
    },
  });
}

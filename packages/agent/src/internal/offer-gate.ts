import type { Host } from '@deepseek-ai/dsh-core';
import { AgentErrorCode } from '../errors.js';

/** The calls of running steps whose tool set is narrowed, by logged call id: what each may call. */
const offers = new WeakMap<Host, Map<string, ReadonlySet<string>[]>>();

/** The stage of the gate's pre-execute tap: before every plugin's tap, so a refused call meets no hook and no prompt. */
export const offerGateStage = -2_000_000;

/**
 * Refuses, at pre-execute, a call of a tool the model was not offered this
 * turn (a model may name any tool it saw earlier, or ignore `toolChoice`).
 * One tap per host, installed on first use; calls no running step narrowed
 * pass untouched. When two concurrent loops log the same call id, the call
 * must fit both sets (it fails closed).
 */
export function narrowStep(host: Host, callIds: readonly string[], callable: ReadonlySet<string>): () => void {
  let byId = offers.get(host);
  if (byId === undefined) {
    const map = new Map<string, ReadonlySet<string>[]>();
    byId = map;
    offers.set(host, map);
    host.hooks.preExecute.tap({ name: 'agent/offered-tools', stage: offerGateStage }, (state) => {
      const sets = map.get(state.call.id);
      if (sets === undefined || sets.every((set) => set.has(state.call.name))) return undefined;
      const names = [...(sets[0] ?? [])].sort().join(', ') || 'none';
      return {
        decision: 'deny',
        reason: `${AgentErrorCode.TOOL_NOT_OFFERED}: the tool "${state.call.name}" was not offered for this turn; it may call: ${names}`,
      };
    });
  }
  const map = byId;
  for (const id of callIds) map.set(id, [...(map.get(id) ?? []), callable]);
  return () => {
    for (const id of callIds) {
      const rest = (map.get(id) ?? []).filter((set) => set !== callable);
      if (rest.length === 0) map.delete(id);
      else map.set(id, rest);
    }
  };
}

import { messageOf } from './errors.js';
import type { GateData, GateType, GateVerdict, GateVeto } from './gates.js';
import { isPromiseLike, withDeadline } from './internal/deadline.js';
import type { CallIdentity } from './outcome.js';
import type { Runtime } from './runtime.js';

const pass: GateVerdict = Object.freeze({ allowed: true });

/**
 * Raises a gate: handlers run in registration order; the first veto ends it.
 * A handler that throws, passes its deadline or answers nonsense vetoes
 * (fail closed).
 */
export async function raiseGate<T extends GateType>(rt: Runtime, type: T, data: GateData<T>, call: CallIdentity): Promise<GateVerdict> {
  const ctx = { call, session: rt.session };
  for (const entry of rt.gates.handlersOf(type)) {
    let answer: GateVeto | undefined | void;
    try {
      const returned = entry.handler(data, ctx);
      if (isPromiseLike(returned)) {
        const timeout = entry.timeoutMs ?? rt.limits.tapTimeoutMs;
        const settled = await withDeadline(returned, timeout);
        if (settled.timedOut) return veto(entry.name, `gate handler "${entry.name}" did not answer within ${timeout} ms`);
        answer = settled.value;
      } else {
        answer = returned;
      }
    } catch (error) {
      return veto(entry.name, `gate handler "${entry.name}" failed: ${messageOf(error)}`);
    }
    if (answer === undefined || answer === null) continue;
    if (typeof answer === 'object' && typeof answer.veto === 'string') {
      return veto(entry.name, answer.veto, typeof answer.code === 'string' ? answer.code : undefined);
    }
    return veto(entry.name, `gate handler "${entry.name}" gave an unknown answer`);
  }
  return pass;
}

function veto(by: string, reason: string, code?: string): GateVerdict {
  return Object.freeze(code === undefined ? { allowed: false, reason, by } : { allowed: false, reason, by, code });
}

import { DshError, ErrorCode } from './errors.js';
import type { Args } from './hooks.js';
import type { CallIdentity } from './outcome.js';
import type { AnyToolDefinition } from './tool.js';

/** What a guard sees: the call exactly as its body would run. */
export interface GuardInput {
  readonly call: CallIdentity;
  readonly tool: AnyToolDefinition;
  readonly args: Args;
  readonly session: string;
  /** Whether a pre-execute tap allowed the call or the user approved it. */
  readonly allowedBy: 'pre-execute' | 'approval';
}

/** A guard's verdict: stay out of it, or deny with a reason for the model. */
export type GuardVerdict = 'abstain' | { readonly deny: string };

/** A check that nothing can overrule: any deny is final. */
export interface Guard {
  readonly id: string;
  check(input: GuardInput): GuardVerdict | Promise<GuardVerdict>;
  /** How long `check` may take before it counts as a deny; the host's `tapTimeoutMs` by default. */
  readonly timeoutMs?: number;
}

/** Held by whoever registered a guard: the only way to remove it. */
export interface GuardHandle {
  readonly id: string;
  remove(): void;
}

/** The registered guards. Order among guards does not matter. */
export class GuardRegistry {
  #guards: readonly Guard[] = [];

  /** Registers a guard; a second guard with the same id is refused with `DUPLICATE_GUARD`. */
  register(guard: Guard): GuardHandle {
    if (typeof guard?.id !== 'string' || guard.id.length === 0 || typeof guard.check !== 'function') {
      throw new DshError(ErrorCode.INVALID_GUARD, 'a guard needs a non-empty id and a check function');
    }
    if (this.#guards.some((g) => g.id === guard.id)) {
      throw new DshError(ErrorCode.DUPLICATE_GUARD, `a guard with id "${guard.id}" is already registered`);
    }
    const held = Object.freeze({ ...guard });
    this.#guards = [...this.#guards, held];
    let removed = false;
    return Object.freeze({
      id: guard.id,
      remove: () => {
        if (removed) return;
        removed = true;
        this.#guards = this.#guards.filter((g) => g !== held);
      },
    });
  }

  /** The ids of the registered guards. */
  ids(): string[] {
    return this.#guards.map((g) => g.id);
  }

  /** The current guards; the array is replaced, never changed, on registration. */
  get all(): readonly Guard[] {
    return this.#guards;
  }
}

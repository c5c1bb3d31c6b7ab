import type { RuleSet, RuleSubject } from '@deepseek-ai/dsh-rules';
import type { DecideInput, PermissionMode } from './decide.js';
import type { GrantStore } from './grants.js';

/**
 * What {@link decide} reads for one call. The grants are a getter, so the
 * grants file is stat'ed only when the decision gets as far as allow rules:
 * a call a deny or ask rule decides costs no system call. A class, not an
 * object literal with a getter: V8 builds such literals on a slow path.
 */
export class CallInput implements DecideInput {
  declare readonly prior?: NonNullable<DecideInput['prior']>;
  readonly #store: GrantStore;

  constructor(
    readonly subject: RuleSubject,
    readonly mode: PermissionMode,
    readonly rules: RuleSet,
    readonly workspace: readonly string[],
    readonly readOnly: boolean,
    store: GrantStore,
    prior: DecideInput['prior'] | undefined,
  ) {
    this.#store = store;
    if (prior !== undefined) this.prior = prior;
  }

  get grants(): RuleSet[] {
    return this.#store.ruleSets();
  }
}

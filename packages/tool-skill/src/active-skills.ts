import type { PreExecuteTap } from '@deepseek-ai/dsh-core';
import { allowedToolCovers } from './allowed-tools.js';
import type { Skill } from './skill.js';

/**
 * The skills loaded since the turn began, whose `allowed-tools` pre-approve
 * calls. Claude Code's semantics: the grant lasts until the next user
 * message (`endTurn()`), and it only approves: it never removes a tool, and
 * deny and ask rules still apply.
 */
export class ActiveSkills {
  readonly #active = new Map<string, Skill>();

  /** Marks a skill active (its `skill` call succeeded). */
  activate(skill: Skill): void {
    this.#active.set(skill.name, skill);
  }

  /** Ends one skill's grant. */
  deactivate(name: string): boolean {
    return this.#active.delete(name);
  }

  /** Ends every grant: call it when the user sends a new message. */
  clear(): void {
    this.#active.clear();
  }

  /** The active skills' names, in load order. */
  names(): string[] {
    return [...this.#active.keys()];
  }

  /**
   * The `tools/pre-execute` tap. It acts only while nothing else has decided
   * the call (the state is still the host's default): then, if an active
   * skill's entry covers the call, it allows it, naming the skill. A
   * decision another tap made (a hook's ask, a rule's deny) is left alone,
   * and a permissions plugin running later still applies its deny and ask
   * rules and plan mode over this allow.
   */
  readonly tap: PreExecuteTap = (state, info) => {
    if (this.#active.size === 0 || state.decidedBy !== undefined || state.decision === 'allow') return undefined;
    for (const skill of this.#active.values()) {
      for (const allowed of skill.allowed) {
        if (allowedToolCovers(allowed, info.tool, state.args)) {
          return { decision: 'allow', reason: `pre-approved by the active skill "${skill.name}" (allowed-tools: ${allowed.entry})` };
        }
      }
    }
    return undefined;
  };
}

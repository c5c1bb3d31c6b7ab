import type { CallIdentity, PreExecuteUpdate } from '@deepseek-ai/dsh-core';
import { SubagentErrorCode } from './errors.js';

/** The tool calls one top-level `task` may still make, shared by every subagent it starts. */
export class CallBudget {
  used = 0;
  /** Set once a call was refused for the budget: every loop of the tree then stops after its step. */
  exceeded = false;
  constructor(readonly max: number) {}
}

/** One running subagent, as the guard and nested `task` calls see it. */
export interface ActiveRun {
  readonly id: string;
  readonly type: string;
  /** 1 for a subagent of the main agent, 2 for one of its subagents, … */
  readonly depth: number;
  /** The dsh names of the tools it may call. */
  readonly allowed: ReadonlySet<string>;
  readonly budget: CallBudget;
  /** Its calls that passed the tool-list and budget check. */
  calls: number;
}

/** The running subagents of one plugin instance, by agent id. */
export class ActiveRuns {
  readonly #runs = new Map<string, ActiveRun>();

  get(id: string): ActiveRun | undefined {
    return this.#runs.get(id);
  }

  /** An agent id not in use: the `task` call's id, with `#2`, `#3`, … when a run of that id is still going. */
  newId(callId: string): string {
    if (!this.#runs.has(callId)) return callId;
    let n = 2;
    while (this.#runs.has(`${callId}#${n}`)) n += 1;
    return `${callId}#${n}`;
  }

  add(run: ActiveRun): void {
    this.#runs.set(run.id, run);
  }

  delete(id: string): void {
    this.#runs.delete(id);
  }

  /**
   * The check behind the plugin's first pre-execute tap: a call made by one
   * of these subagents must name a tool in its set and fit the budget. It
   * denies before hooks and approval run (nobody is asked about a call that
   * cannot run), and a pre-execute deny ends the waterfall: no later tap can
   * allow it. Calls of the main agent, or of an agent this instance did not
   * start, pass untouched.
   */
  check(call: CallIdentity): PreExecuteUpdate | undefined {
    const agent = call.agent;
    if (agent === undefined) return undefined;
    const run = this.#runs.get(agent.id);
    if (run === undefined) return undefined;
    if (!run.allowed.has(call.name)) {
      const names = [...run.allowed].sort().join(', ') || 'none';
      return {
        decision: 'deny',
        reason: `${SubagentErrorCode.TOOL_NOT_ALLOWED}: the subagent "${run.type}" may not call "${call.name}"; its tools are: ${names}`,
      };
    }
    if (run.budget.used >= run.budget.max) {
      run.budget.exceeded = true;
      return {
        decision: 'deny',
        reason: `${SubagentErrorCode.CALL_LIMIT}: this task has made its ${run.budget.max} tool calls; the subagent stops after this step`,
      };
    }
    run.budget.used += 1;
    run.calls += 1;
    return undefined;
  }
}

import type { Host } from '@deepseek-ai/dsh-core';
import type { GraphApprovals } from './approvals.js';
import { CallGroup } from './call-group.js';
import type { CallRun } from './call-run.js';

/** How many answered calls the bridge remembers, so that a re-run node gets the same answer. */
const rememberedResults = 10_000;

/**
 * What the bridge keeps for its host: the calls in flight and the answers of
 * settled ones (both keyed by tool call id), and the groups of calls of one AI
 * message.
 */
export class BridgeState {
  readonly runs = new Map<string, CallRun>();
  readonly #answered = new Map<string, unknown>();
  readonly #groups = new Map<string, CallGroup>();
  /** Names of LangChain tools registered on the host as dsh tools by this bridge. */
  readonly frameworkTools = new Set<string>();

  constructor(
    readonly host: Host,
    readonly approvals: GraphApprovals,
    readonly parallelTools: ReadonlySet<string>,
    readonly maxParallel: number,
  ) {}

  /** The answer a settled call got (a ToolMessage or a Command), if remembered. */
  answered(id: string): unknown {
    return this.#answered.get(id);
  }

  /** Records `run`'s final answer and forgets the run. */
  settle(run: CallRun, answer: unknown): void {
    this.#answered.set(run.id, answer);
    if (this.#answered.size > rememberedResults) {
      const oldest = this.#answered.keys().next().value;
      if (oldest !== undefined) this.#answered.delete(oldest);
    }
    if (this.runs.get(run.id) === run) this.runs.delete(run.id);
    this.approvals.untrack(run);
    run.enter('settled');
    for (const [key, group] of this.#groups) if (group.settled()) this.#groups.delete(key);
  }

  /** Settles once every call in flight has settled or waits for a person. */
  async idle(): Promise<void> {
    for (;;) {
      const busy = [...this.runs.values()].filter((run) => run.phase !== 'settled' && run.phase !== 'asking');
      if (busy.length === 0) return;
      await Promise.race(busy.map((run) => run.nextChange()));
    }
  }

  /** The group of the AI message `key`, made on first use. */
  group(key: string): CallGroup {
    let group = this.#groups.get(key);
    if (group === undefined) {
      group = new CallGroup(this.maxParallel);
      this.#groups.set(key, group);
    }
    return group;
  }
}

import type { Host } from '@deepseek-ai/dsh-core';
import type { GraphApprovals } from './approvals.js';
import { CallGroup } from './call-group.js';
import type { CallRun } from './call-run.js';
import { type RefusedCall, refusedReason } from './invalid-calls.js';
import { TaskInterrupts } from './task-interrupts.js';

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
  /** The questions each LangGraph task put through `interrupt()`, so resume values reach the call they answer. */
  readonly interrupts = new TaskInterrupts();
  /** Calls LangChain refused (`invalid_tool_calls`) until they settle: the arguments as sent and LangChain's error. */
  readonly refused = new Map<string, RefusedCall>();
  #refusing = false;
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
    this.refused.delete(run.id);
    this.approvals.untrack(run);
    run.enter('settled');
    for (const [key, group] of this.#groups) if (group.settled()) this.#groups.delete(key);
  }

  /**
   * Settles once every call seen so far has its `tool/result` in the session
   * log's sink, except calls waiting for a person: those end when the graph
   * is resumed, at `cancelPending()`, or at the host's `approvalTimeoutMs`.
   */
  async settled(): Promise<void> {
    for (;;) {
      const open = [...this.runs.values()].filter((run) => run.phase !== 'settled' && run.phase !== 'asking');
      if (open.length === 0) break;
      await Promise.race(open.map((run) => run.nextChange()));
    }
    await this.host.events.flush();
  }

  /**
   * Denies, first thing in pre-execute, a refused call whose arguments dsh
   * could parse: the framework refused it, so its body never runs. Tapped on
   * the first refused call, so the hosts that never see one pay nothing.
   */
  refuseRefusedCalls(): void {
    if (this.#refusing) return;
    this.#refusing = true;
    this.host.hooks.preExecute.tap({ name: 'langchain/refused-call', stage: -1_000_000 }, (pre) => {
      const refused = this.refused.get(pre.call.id);
      return refused === undefined ? undefined : { decision: 'deny', reason: refusedReason(refused.error) };
    });
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

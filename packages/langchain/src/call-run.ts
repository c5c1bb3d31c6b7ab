import type { ApprovalReply, ApprovalRequest, Outcome } from '@deepseek-ai/dsh-core';
import type { CallGroup } from './call-group.js';

/**
 * Where a call is: `queued` (waiting for the calls before it to be admitted),
 * `admitting` (tool/call logged; pre-execute, approval or guards under way),
 * `asking` (waiting for a person through a LangGraph interrupt), `admitted`
 * (waiting for its turn to start its body), `running` (its body), `finishing`
 * (body done or call denied, waiting for the calls before it to commit),
 * `settled` (its one `tool/result` is logged).
 */
export type CallPhase = 'queued' | 'admitting' | 'asking' | 'admitted' | 'running' | 'finishing' | 'settled';

/** A question dsh put to a person for this call, answered through `interrupt()`. */
export interface PendingQuestion {
  readonly request: ApprovalRequest;
  readonly answer: (reply: ApprovalReply) => void;
}

/**
 * One model tool call as the bridge tracks it, keyed by the LangChain tool
 * call id. It outlives a graph run: when a resumed node runs the call again,
 * the bridge finds this record instead of starting the pipeline a second time.
 */
export class CallRun {
  phase: CallPhase = 'queued';
  group: CallGroup | undefined;
  /** Set while dsh waits for a person; cleared once answered. */
  question: PendingQuestion | undefined;
  /** The framework's own handler and request, newest run's: what a LangChain tool's dsh body calls. */
  frameworkBody: ((args: Readonly<Record<string, unknown>>) => Promise<unknown>) | undefined;
  /** What the framework's handler returned for this call (a ToolMessage or a Command). */
  frameworkResult: unknown;
  /** The pipeline's outcome; set once `settled`. */
  outcome: Outcome | undefined;
  /** Whether bodies of this tool may overlap other parallel bodies. */
  parallel = false;
  readonly #listeners = new Set<() => void>();

  constructor(
    readonly id: string,
    readonly name: string,
  ) {}

  /** Moves to `phase` and wakes everyone waiting for a change. */
  enter(phase: CallPhase): void {
    this.phase = phase;
    this.changed();
  }

  /** Wakes everyone waiting for a change of this call (a question, a phase). */
  changed(): void {
    for (const listener of [...this.#listeners]) listener();
    this.group?.changed();
  }

  /** Settles at this call's next change. */
  nextChange(): Promise<void> {
    return new Promise((resolve) => {
      const listener = () => {
        this.#listeners.delete(listener);
        resolve();
      };
      this.#listeners.add(listener);
    });
  }
}

import type { ApprovalReply, Outcome } from '@deepseek-ai/dsh-core';
import type { RunContext } from '@openai/agents-core';

/** The SDK's side of a call, as its last callback saw it: what a wrapped SDK tool's body needs. */
export interface SdkCallSide {
  runContext: RunContext<unknown> | undefined;
  signal: AbortSignal | undefined;
}

/** What a call settled with: the dsh outcome and the text the model reads. */
export interface Settled {
  readonly outcome: Outcome;
  readonly text: string;
}

/**
 * One call on its way through the dsh pipeline on behalf of the SDK. It
 * starts at `needsApproval` (or `invoke`), tells `needsApproval` whether dsh
 * asked, and holds dsh's approval open while the run is interrupted.
 */
export class Flight {
  /** Resolves `true` when dsh asked approval for the call, `false` when the call settled without asking. */
  readonly decided: Promise<boolean>;
  /** The call's one result. */
  readonly settled: Promise<Settled>;
  /** An answer known before dsh asks (the run already approved or rejected the call). */
  preAnswer: ApprovalReply | undefined;
  /** The store holds a record of this call, to be marked settled with the result. */
  recorded = false;
  private decide!: (asked: boolean) => void;
  private answer: ((reply: ApprovalReply) => void) | undefined;
  private settle!: (value: Settled) => void;

  constructor(
    readonly callId: string,
    readonly tool: string,
    readonly side: SdkCallSide,
  ) {
    this.decided = new Promise((resolve) => {
      this.decide = resolve;
    });
    this.settled = new Promise((resolve) => {
      this.settle = resolve;
    });
  }

  /** True while dsh waits for the run's answer. */
  get waiting(): boolean {
    return this.answer !== undefined;
  }

  /** Called by the approval provider: the run must interrupt; the promise settles with the person's answer. */
  ask(): Promise<ApprovalReply> {
    const reply = new Promise<ApprovalReply>((resolve) => {
      this.answer = resolve;
    });
    this.decide(true);
    return reply;
  }

  /** Gives dsh the run's answer; false when dsh was not waiting (answered already, or never asked). */
  reply(reply: ApprovalReply): boolean {
    const answer = this.answer;
    if (answer === undefined) return false;
    this.answer = undefined;
    answer(reply);
    return true;
  }

  /** Called once the pipeline gave the call its result. */
  finish(value: Settled): void {
    this.answer = undefined;
    this.decide(false);
    this.settle(value);
  }
}

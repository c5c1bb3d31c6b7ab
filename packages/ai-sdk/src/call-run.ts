import type { ApprovalReply, ApprovalRequest, Args, Outcome, StepResult } from '@deepseek-ai/dsh-core';
import type { DispatchGroup } from './dispatch-group.js';
import { Deferred } from './internal/deferred.js';
import type { SdkCallOptions } from './sdk-types.js';

/** How a call's policy stages ended, as the SDK's approval question needs it. */
export type Admission = 'ask' | 'dispatch' | 'settled';

/** Why a held call may leave its hold: the SDK asked for it, or it never will. */
export type Release = { readonly go: true } | { readonly go: false; readonly why: string };

/** The release `execute` gives: one object for every call. */
export const go: Release = Object.freeze({ go: true });

/** Where a call is: in its policy stages, waiting for the user, held before its body, running it, past it, or committed. */
export type CallPhase = 'admitting' | 'asking' | 'held' | 'running' | 'ran' | 'done';

/**
 * One SDK tool call on its way through the pipeline (its own one-call dsh
 * step). The SDK asks about approval first (`needsApproval`) and runs
 * `execute` later, so the run is started at the first question and held
 * before its body until `execute` comes.
 */
export class CallRun {
  readonly id: string;
  readonly name: string;
  readonly args: Args;
  /** Order of arrival: the model's order within an SDK step. */
  readonly seq: number;
  readonly parallel: boolean;
  /** The call's token, learned when a stage of this host first shows the call. */
  token: string | undefined;
  phase: CallPhase = 'admitting';
  /** Started by `execute` without a `needsApproval` question: an `ask` cannot go to the user. */
  direct = false;
  /** Set once dsh's approval stage asked about it: the SDK's approval flow answers. */
  asked: ApprovalRequest | undefined;
  group: DispatchGroup | undefined;
  /** The SDK will not call `execute` for it (denied by the user, never executed, abandoned): forget it once settled. */
  orphaned = false;
  readonly admission = new Deferred<Admission>();
  readonly release = new Deferred<Release>();
  #answer: Deferred<ApprovalReply> | undefined;
  /** The options the SDK passed with the call, handed on to a framework tool's own `execute`. */
  sdkOptions: SdkCallOptions = {};
  /** The run's step: resolves once its `tool/result` (and context message) are logged. */
  result!: Promise<StepResult>;
  readonly #done = new Deferred<Outcome>();

  constructor(init: { id: string; name: string; args: Args; seq: number; parallel: boolean }) {
    this.id = init.id;
    this.name = init.name;
    this.args = init.args;
    this.seq = init.seq;
    this.parallel = init.parallel;
  }

  /** The user's answer, once dsh asked (made on first use: most calls are never asked about). */
  get answer(): Deferred<ApprovalReply> {
    this.#answer ??= new Deferred<ApprovalReply>();
    return this.#answer;
  }

  /** Settles when the run's outcome is committed to the session log. */
  get done(): Promise<Outcome> {
    return this.#done.promise;
  }

  get isDone(): boolean {
    return this.phase === 'done';
  }

  /** Waiting for someone outside the pipeline: the user's answer, or the SDK's `execute`. */
  get waitsForSomeone(): boolean {
    if (this.phase === 'asking') return !this.answer.settled;
    return this.phase === 'held' && !this.release.settled;
  }

  /** Records the committed outcome; any question still open about the run now has its answer. */
  finish(outcome: Outcome): void {
    this.phase = 'done';
    this.admission.resolve('settled');
    this.release.resolve({ go: false, why: 'the call is already settled' });
    this.#done.resolve(outcome);
  }
}

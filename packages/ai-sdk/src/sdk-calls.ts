import {
  type ApprovalReply,
  type ApprovalRequest,
  type Args,
  type CallIdentity,
  Cancellation,
  type DispatchOutcome,
  type ExecuteNext,
  type Host,
  type Outcome,
  type StepCall,
  type StepResult,
} from '@deepseek-ai/dsh-core';
import type { ModelMessage } from 'ai';
import { deniedResponses } from './approval-responses.js';
import { CallRun, go, type Release } from './call-run.js';
import { DispatchGroup } from './dispatch-group.js';
import { AiSdkErrorCode } from './errors.js';
import { partsOf, type SdkCallOptions } from './sdk-types.js';

/** A call dsh asked about that waits for the user's answer through the SDK. */
export interface PendingApproval {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The effective arguments (after any rewrite by a hook or tap). */
  readonly args: Args;
  /** Why dsh asks (the rule or hook that said `ask`), when one said. */
  readonly reason: string | undefined;
}

/** Limits of the call table. */
export interface SdkCallsLimits {
  readonly maxParallel: number;
  readonly holdTimeoutMs: number;
}

/**
 * Every SDK tool call this adapter has seen and not yet handed back: the link
 * between the SDK's two questions about a call (`needsApproval`, then
 * `execute`) and the one dsh step that answers both.
 */
export class SdkCalls {
  readonly #host: Host;
  readonly #limits: SdkCallsLimits;
  readonly #runs = new Map<string, CallRun>();
  /** One group per SDK step, found by the message array the SDK passes to each call of that step. */
  readonly #groups = new WeakMap<object, DispatchGroup>();
  #latest: DispatchGroup | undefined;
  #seq = 0;
  /** Context a call's post-execute stage added, kept for every later request of the conversation. */
  readonly #context = new Map<string, string>();
  /** Approval responses already read, so an old denial in the history never answers a new call. */
  readonly #seenResponses = new Set<string>();
  /** Calls whose `tool/result` is not logged yet, for `settled()`. */
  readonly #unsettled = new Set<CallRun>();
  /** Steps of refused calls still running, for `settled()`. */
  readonly #refusals = new Set<Promise<StepResult>>();
  /** How many messages of each history array were read for denials: each call of a step passes the same array. */
  readonly #readLengths = new WeakMap<readonly ModelMessage[], number>();

  constructor(host: Host, limits: SdkCallsLimits) {
    this.#host = host;
    this.#limits = limits;
  }

  /** `needsApproval`: starts the call's dsh step and answers once its policy stages have decided. */
  async needsApproval(name: string, args: Args, options: SdkCallOptions): Promise<boolean> {
    const id = options.toolCallId;
    if (id === undefined) return false;
    this.readDenials(options.messages);
    let run = this.#runs.get(id);
    // The SDK asks again before it executes an approved call: the call is still waiting for that answer.
    if (run !== undefined && run.name === name && run.asked !== undefined) return true;
    if (run === undefined || this.#stale(run, name, options.messages)) run = this.#start(id, name, args, options, false);
    return (await run.admission.promise) === 'ask';
  }

  /** `execute`: answers a pending approval (the SDK runs only approved calls), lets the body run and returns the outcome. */
  async execute(name: string, args: Args, options: SdkCallOptions): Promise<Outcome> {
    const id = options.toolCallId ?? `ai-sdk-${this.#seq + 1}`;
    this.readDenials(options.messages);
    let run = this.#runs.get(id);
    if (run === undefined || this.#stale(run, name, options.messages)) run = this.#start(id, name, args, options, true);
    run.sdkOptions = options;
    if (run.asked !== undefined && !run.answer.settled) {
      this.#groupOf(options.messages).join(run);
      run.answer.resolve({ answer: 'allowed-once' });
    }
    run.release.resolve(go);
    try {
      return await run.done;
    } finally {
      if (this.#runs.get(id) === run) this.#runs.delete(id);
    }
  }

  /** Answers `rejected` for every waiting call whose denial is in `messages`. */
  readDenials(messages: readonly ModelMessage[] | undefined): void {
    if (messages === undefined || this.#readLengths.get(messages) === messages.length) return;
    this.#readLengths.set(messages, messages.length);
    for (const denial of deniedResponses(messages)) {
      if (this.#seenResponses.has(denial.approvalId)) continue;
      this.#seenResponses.add(denial.approvalId);
      const run = this.#runs.get(denial.toolCallId);
      if (run?.asked === undefined || run.answer.settled) continue;
      run.orphaned = true;
      run.answer.resolve({ answer: 'rejected', message: denial.reason ?? 'The user denied this tool call.' });
    }
  }

  /** The approval provider's half: a call of ours left at `ask` waits for the SDK's answer. */
  ask(request: ApprovalRequest): Promise<ApprovalReply> | undefined {
    const run = this.#claim(request.call);
    if (run === undefined || run.phase !== 'admitting' || run.direct) return undefined;
    run.asked = request;
    run.phase = 'asking';
    run.group?.leave(run);
    run.admission.resolve('ask');
    return run.answer.promise;
  }

  /**
   * The outermost `tools/execute` tap: holds an admitted call until the SDK
   * executes it, in the model's order. It follows the call's cancellation,
   * not its signal: an AbortSignal per call would cost more than the rest of the hold.
   */
  async hold(call: CallIdentity, cancellation: Cancellation, next: ExecuteNext): Promise<DispatchOutcome> {
    const run = this.#claim(call);
    if (run === undefined) return next();
    run.phase = 'held';
    run.group?.changed();
    run.admission.resolve('dispatch');
    const release = run.release.settled ? await run.release.promise : await this.#released(run, cancellation);
    const group = run.group;
    if (!release.go || (group !== undefined && !group.mayStart(run) && !(await group.turn(run, cancellation)))) {
      run.phase = 'ran';
      group?.changed();
      const why = release.go ? 'the call was cancelled before its body started' : release.why;
      return { status: 'error', stage: 'execute', by: 'ai-sdk', error: { code: AiSdkErrorCode.NOT_EXECUTED, message: why } };
    }
    run.phase = 'running';
    group?.changed();
    try {
      return await this.#runBody(run, cancellation, next);
    } finally {
      run.phase = 'ran';
      group?.changed();
    }
  }

  /**
   * The rest of the chain, following the abortSignal the SDK passed to
   * `execute`. A call `execute` started itself has that signal as its step's
   * already; one started by `needsApproval` follows it from here, under a
   * cancellation of its own, so that core still settles a body that ignores it.
   */
  #runBody(run: CallRun, cancellation: Cancellation, next: ExecuteNext): Promise<DispatchOutcome> {
    const signal = run.direct ? undefined : run.sdkOptions.abortSignal;
    if (signal === undefined) return next();
    const own = new Cancellation({ parent: cancellation });
    const abort = () => own.abort(signal.reason);
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    return next({ cancellation: own }).finally(() => signal.removeEventListener('abort', abort));
  }

  /**
   * The first `tools/post-execute` tap: a call of ours waits here until every
   * earlier call of its SDK step is committed, so results (and the hooks
   * after this tap) follow the model's order, whatever order bodies finish
   * in, and whether or not a call was dispatched at all.
   */
  inModelOrder(call: CallIdentity): Promise<unknown> | undefined {
    const run = this.#claim(call);
    if (run === undefined) return undefined;
    if (run.phase === 'admitting') {
      // Denied or failed before dispatch: the SDK's approval question has its answer now.
      run.phase = 'ran';
      run.admission.resolve('settled');
      run.group?.changed();
    }
    const waiting = run.group?.predecessors(run).filter((earlier) => !earlier.isDone);
    // Nothing earlier to wait for (a step's first call, or a lone one): the tap answers without a turn.
    return waiting === undefined || waiting.length === 0 ? undefined : Promise.all(waiting.map((earlier) => earlier.done));
  }

  /** Every call waiting for the user, oldest first. */
  pendingApprovals(): PendingApproval[] {
    const pending: PendingApproval[] = [];
    for (const run of this.#runs.values()) {
      if (run.asked === undefined || run.answer.settled) continue;
      pending.push({ toolCallId: run.id, toolName: run.name, args: run.asked.args, reason: run.asked.reason });
    }
    return pending;
  }

  /** The options the SDK gave with the call of this identity: a framework tool's `execute` receives them. */
  optionsOf(call: CallIdentity): SdkCallOptions | undefined {
    const run = this.#runs.get(call.id);
    return run !== undefined && run.token === call.token ? run.sdkOptions : undefined;
  }

  /**
   * `messages` with each step's added context as a user message after the
   * tool messages that hold the step's results; the same array when there is
   * none. After an approval a step's results span several tool messages (the
   * results the SDK ran first, the user's answer, the approved call's
   * result): the context goes after the last of them, since no other message
   * may come between a call and its result.
   */
  withContext(messages: ModelMessage[]): ModelMessage[] {
    if (this.#context.size === 0) return messages;
    let out: ModelMessage[] | undefined;
    let texts: string[] = [];
    for (let index = 0; index <= messages.length; index++) {
      const message = messages[index];
      if (message?.role === 'tool') {
        for (const part of partsOf(message)) {
          const text = part.type === 'tool-result' && part.toolCallId !== undefined ? this.#context.get(part.toolCallId) : undefined;
          if (text !== undefined) texts.push(text);
        }
      } else if (texts.length > 0) {
        out ??= messages.slice(0, index);
        out.push({ role: 'user', content: [{ type: 'text', text: texts.join('\n\n') }] });
        texts = [];
      }
      if (message !== undefined) out?.push(message);
    }
    return out ?? messages;
  }

  /**
   * Settles once every call seen so far has its `tool/result` in the session
   * log's sink, apart from calls that wait for someone: for the user's answer
   * (`pendingApprovals()`) or for the SDK to execute them. Those settle when
   * answered, executed, abandoned or timed out; a later `settled()` waits for them then.
   */
  async settled(): Promise<void> {
    for (;;) {
      const waits: Promise<unknown>[] = [...this.#refusals];
      for (const run of this.#unsettled) {
        if (run.waitsForSomeone) continue;
        // A call still in its policy stages may be about to wait for someone: look again when it does.
        waits.push(run.phase === 'admitting' ? Promise.race([run.done, run.admission.promise]) : run.done);
      }
      if (waits.length === 0) break;
      await Promise.all(waits);
    }
    await this.#host.events.flush();
  }

  /**
   * Runs a call the SDK refused (see `RefusedCalls`) as a one-call step, so it
   * is logged like any other: `settled()` waits for it and its added context
   * follows the SDK's result for it.
   */
  async runRefused(call: StepCall): Promise<Outcome> {
    const step = this.#host.runStep({ calls: [call] });
    this.#refusals.add(step);
    try {
      const result = await step;
      if (result.context !== undefined) this.#context.set(call.id, result.context.text);
      return result.results[0]?.outcome ?? stepFailure(result);
    } finally {
      this.#refusals.delete(step);
    }
  }

  /** Ends every call the SDK has not executed (`NOT_EXECUTED`) and denies every pending approval. */
  abandon(reason: string): void {
    // The runs stay known: an answer the SDK still sends for one of them gets its settled outcome, not a second run.
    for (const run of this.#runs.values()) {
      run.answer.resolve({ answer: 'cancelled', message: reason });
      run.release.resolve({ go: false, why: reason });
    }
  }

  #start(id: string, name: string, args: Args, options: SdkCallOptions, direct: boolean): CallRun {
    this.#seq += 1;
    const run = new CallRun({ id, name, args, seq: this.#seq, parallel: this.#host.tools.get(name)?.parallel === true });
    run.direct = direct;
    run.sdkOptions = options;
    this.#runs.set(id, run);
    this.#unsettled.add(run);
    const group = this.#groupOf(options.messages);
    group.join(run);
    // A call `execute` starts follows the SDK's signal as its step's; one `needsApproval` starts gets it at its body (`#runBody`).
    const signal = direct ? options.abortSignal : undefined;
    const step = { calls: [{ id, name, args }] };
    run.result = signal === undefined ? this.#host.runStep(step) : this.#host.runStep(step, { signal });
    void run.result.then((step) => this.#settle(run, step));
    return run;
  }

  #settle(run: CallRun, step: StepResult): void {
    const outcome = step.results[0]?.outcome ?? stepFailure(step);
    this.#unsettled.delete(run);
    if (step.context !== undefined) this.#context.set(run.id, step.context.text);
    run.finish(outcome);
    run.group?.changed();
    if (run.orphaned && this.#runs.get(run.id) === run) this.#runs.delete(run.id);
  }

  /**
   * The group of an SDK step. A new step means the SDK is done starting the
   * previous one's calls: any of those still held was never going to run.
   */
  #groupOf(messages: readonly ModelMessage[] | undefined): DispatchGroup {
    const known = messages === undefined ? undefined : this.#groups.get(messages);
    if (known !== undefined) return known;
    const group = new DispatchGroup(this.#limits.maxParallel);
    if (messages !== undefined) this.#groups.set(messages, group);
    const previous = this.#latest;
    this.#latest = group;
    for (const member of previous?.members ?? []) {
      if (!member.release.settled) member.orphaned = true;
      member.release.resolve({ go: false, why: 'the SDK began another step without executing this call' });
    }
    return group;
  }

  #released(run: CallRun, cancellation: Cancellation): Promise<Release> {
    const cancelled: Release = { go: false, why: 'the call was cancelled before the SDK executed it' };
    if (cancellation.aborted) return Promise.resolve(cancelled);
    const timeoutMs = this.#limits.holdTimeoutMs;
    return new Promise<Release>((resolve) => {
      const done = (release: Release) => {
        clearTimeout(timer);
        stopFollowing();
        resolve(release);
      };
      // A bound for a call the SDK never executes, not a measure of speed: it only ends a hold nobody will release.
      const timer = setTimeout(() => done({ go: false, why: `the SDK did not execute the call within ${timeoutMs} ms` }), timeoutMs);
      timer.unref?.();
      const stopFollowing = cancellation.onAbort(() => done(cancelled));
      void run.release.promise.then(done);
    });
  }

  /** A run left from another call with the same id (another tool, or an earlier step that never executed it). */
  #stale(run: CallRun, name: string, messages: readonly ModelMessage[] | undefined): boolean {
    if (run.name !== name) return true;
    if (run.asked !== undefined || !run.isDone || messages === undefined) return false;
    return run.group !== this.#groups.get(messages);
  }

  /** The run of this call identity: the first stage that shows a call of ours binds its token. */
  #claim(call: CallIdentity): CallRun | undefined {
    const run = this.#runs.get(call.id);
    if (run === undefined || run.name !== call.name) return undefined;
    if (run.token === undefined) {
      if (run.phase !== 'admitting') return undefined;
      run.token = call.token;
      return run;
    }
    return run.token === call.token ? run : undefined;
  }
}

/** The outcome of a step that gave no result for its call (a malformed step). */
function stepFailure(step: StepResult): Outcome {
  return { status: 'error', stage: 'step', error: step.error ?? { code: 'INVALID_STEP', message: 'the step returned no result' } };
}

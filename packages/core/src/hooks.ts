import type { Cancellation } from './cancellation.js';
import type { JsonValue } from './json.js';
import type { CallIdentity, DispatchOutcome, Outcome } from './outcome.js';
import { type HookPoint, TapList } from './taps.js';
import type { AnyToolDefinition } from './tool.js';

/** The arguments of a call: a JSON object. */
export type Args = Readonly<Record<string, unknown>>;

/** What the pre-execute waterfall decides: run, refuse, or ask the user. */
export type Decision = 'allow' | 'deny' | 'ask';

/** The state the `tools/pre-execute` waterfall passes from tap to tap. */
export interface PreExecuteState {
  readonly call: CallIdentity;
  /** The validated arguments, or a rewrite by an earlier tap (validated again after the waterfall). */
  readonly args: Args;
  readonly decision: Decision;
  readonly reason?: string;
  /** The tap that set the current decision; absent while it is the host's default. */
  readonly decidedBy?: string;
  /** Set with an `allow` that a remembered grant gave in place of asking; cleared when a later tap decides again. */
  readonly remembered?: RememberedApproval;
}

/**
 * A remembered approval (a grant the user chose earlier) that answers this
 * call's approval instead of the provider. Core logs `approval/request` and
 * `approval/answer` (`source: 'remembered'`) for it, so the log tells who allowed the call.
 */
export interface RememberedApproval {
  /** The grant's id. */
  readonly grant: string;
  /** What the grant said, for the log. */
  readonly message?: string;
}

/** What a pre-execute tap may change. Returning `undefined` keeps the state. */
export interface PreExecuteUpdate {
  readonly args?: Args;
  readonly decision?: Decision;
  readonly reason?: string;
  /** With `decision: 'allow'`: a remembered grant answered the approval this call would have needed. */
  readonly remembered?: RememberedApproval;
}

/** What every tap and observer learns about the call besides its state. */
export interface CallInfo {
  readonly call: CallIdentity;
  /** Absent only for a call to an unknown tool. */
  readonly tool: AnyToolDefinition | undefined;
  readonly session: string;
}

/**
 * A `tools/pre-execute` tap. A returned `decision: 'deny'` is final: the
 * waterfall stops there. A tap that throws or passes its deadline denies.
 */
export type PreExecuteTap = (
  state: PreExecuteState,
  info: CallInfo & { readonly tool: AnyToolDefinition; readonly signal: AbortSignal },
) => PreExecuteUpdate | undefined | void | Promise<PreExecuteUpdate | undefined | void>;

/** What a `tools/execute` tap gets: the call, its final arguments and the cancellation to honour. */
export interface ExecuteContext extends CallInfo {
  readonly tool: AnyToolDefinition;
  readonly args: Args;
  /** The cancellation inner stages follow; cheap to listen to (`onAbort`), unlike `signal`. */
  readonly cancellation: Cancellation;
  /** `cancellation.signal`: made on first read. */
  readonly signal: AbortSignal;
}

/**
 * Runs the rest of the chain and the body. Pass a `cancellation` (or a plain
 * `signal`) to give the inner taps and the body one of your own (a
 * timeout's, say); it should follow the outer one (`parent`). Core races
 * what runs under it against it: its deadline and grace period apply there.
 */
export type ExecuteNext = (patch?: { readonly cancellation?: Cancellation; readonly signal?: AbortSignal }) => Promise<DispatchOutcome>;

/** A `tools/execute` tap: middleware around dispatch, `(ctx, next) => outcome`. */
export type ExecuteTap = (ctx: ExecuteContext, next: ExecuteNext) => DispatchOutcome | Promise<DispatchOutcome>;

/** The state a `tools/post-execute` tap sees. */
export interface PostExecuteState extends CallInfo {
  readonly args: Args;
  readonly outcome: Outcome;
  /** Aborted when the step is cancelled: a tap doing slow work (a hook script) should stop. */
  readonly signal: AbortSignal;
}

/**
 * What a post-execute tap decides; `undefined` accepts. `block` withholds the
 * output (final: later taps may only add context); `replaceOutput` (when the
 * key is present) replaces the output of an `ok` or `error` outcome;
 * `addContext` queues text for the step's context message. A denied outcome
 * stays denied: only context may be added to it.
 */
export interface PostExecuteVerdict {
  readonly block?: string;
  readonly replaceOutput?: JsonValue;
  readonly addContext?: string;
}

/** A `tools/post-execute` tap. One that throws turns the outcome into an error. */
export type PostExecuteTap = (
  state: PostExecuteState,
) => PostExecuteVerdict | undefined | void | Promise<PostExecuteVerdict | undefined | void>;

/** A `tools/result` observer: sees the frozen outcome; cannot change it. */
export type ResultObserver = (outcome: Outcome, info: CallInfo & { readonly args: Args }) => void | Promise<void>;

/** The four extension points around a call. */
export interface Hooks {
  /** `tools/pre-execute`: a waterfall of decisions and argument rewrites. */
  readonly preExecute: HookPoint<PreExecuteTap>;
  /** `tools/execute`: middleware around dispatch, first registered outermost. */
  readonly execute: HookPoint<ExecuteTap>;
  /** `tools/post-execute`: a waterfall that may block, replace or add context. */
  readonly postExecute: HookPoint<PostExecuteTap>;
  /** `tools/result`: observers of the final outcome, run in parallel. */
  readonly result: HookPoint<ResultObserver>;
}

/** Creates the four empty extension points. */
export function createHooks(): Hooks {
  return {
    preExecute: new TapList<PreExecuteTap>('tools/pre-execute'),
    execute: new TapList<ExecuteTap>('tools/execute'),
    postExecute: new TapList<PostExecuteTap>('tools/post-execute'),
    result: new TapList<ResultObserver>('tools/result'),
  };
}

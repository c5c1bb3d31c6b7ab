import type { SessionAnchors } from './anchors.js';
import type { ApprovalProvider } from './approval.js';
import type { Diagnostics } from './diagnostics.js';
import type { ContextPart, EventLog } from './events.js';
import type { GateRegistry } from './gates.js';
import type { GuardRegistry } from './guards.js';
import type { Decision, Hooks } from './hooks.js';
import type { DeadlineTimer } from './internal/deadline-timer.js';
import type { Outcome } from './outcome.js';
import type { ToolRegistry } from './registry.js';
import type { SubCall } from './tool.js';
import type { UiAdapter } from './ui.js';

/** Deadlines and limits of a host, all in milliseconds. */
export interface Limits {
  readonly approvalTimeoutMs: number;
  readonly tapTimeoutMs: number;
  readonly uiTimeoutMs: number;
  readonly abortGraceMs: number;
  readonly dispatchTimeoutMs: number | undefined;
  readonly maxParallel: number;
}

/** Everything the pipeline stages share: one per host. */
export interface Runtime {
  readonly session: string;
  /** The session's working, project and home directories: what tools resolve path arguments against. */
  readonly anchors: SessionAnchors;
  readonly tools: ToolRegistry;
  readonly hooks: Hooks;
  readonly guards: GuardRegistry;
  readonly gates: GateRegistry;
  readonly log: EventLog;
  readonly diagnostics: Diagnostics;
  readonly approval: ApprovalProvider | undefined;
  readonly ui: UiAdapter | undefined;
  readonly defaultDecision: Decision;
  readonly limits: Limits;
  /** The one timer behind every cancellation deadline of this host. */
  readonly deadlines: DeadlineTimer;
  nextToken(): string;
  /** Runs one call through the whole pipeline (`host.tools.execute`). */
  execute(call: SubCall, parent?: ParentCall): Promise<Outcome>;
}

/**
 * The call on whose behalf a sub-call (or every call of a nested step) runs:
 * its token is carried, its signal followed, its id recorded as `parent` in
 * each `tool/call` event.
 */
export interface ParentCall {
  readonly id: string;
  readonly token: string;
  readonly signal?: AbortSignal;
  /**
   * The subagent on whose behalf the calls run (a nested loop's): carried,
   * frozen, on each call's `CallIdentity.agent` and recorded in its
   * `tool/call` event. Without it, calls inherit nothing: a sub-call made
   * through a body's `ctx.tools.execute` keeps its outer call's agent.
   */
  readonly agent?: { readonly id: string; readonly type: string };
  /**
   * For `host.tools.execute`: called with a sub-call's additional context,
   * which core drops (a single call has no step message to carry it). Not
   * called when there is none, nor for a nested step, which keeps its context.
   */
  readonly onDroppedContext?: (parts: readonly ContextPart[]) => void;
}

import { Cancellation } from './cancellation.js';
import type { ContextPart, EventData } from './events.js';
import type { Args } from './hooks.js';
import type { CallIdentity, Outcome } from './outcome.js';
import type { AnyToolDefinition } from './tool.js';

/** The mutable record of one call as it moves through the stages (internal). */
export interface CallRun {
  readonly identity: CallIdentity;
  /** The arguments exactly as sent: JSON text or an object. */
  readonly sent: unknown;
  /** For a sub-call, the outer call. */
  readonly parent: { readonly id: string; readonly signal?: AbortSignal | undefined } | undefined;
  /** Aborted by the step's signal, a timeout or the parent: behind the body's `ctx.signal`. */
  readonly cancellation: Cancellation;
  /** False when nothing can abort the call (no step signal, parent or host deadline): dispatch then needs no race. */
  abortable: boolean;
  tool: AnyToolDefinition | undefined;
  /** Parsed (not yet validated) arguments; `{}` when they could not be parsed. */
  parsed: Args;
  /** The arguments the body runs with; meaningful only once `validated`. */
  args: Args;
  /** True once the arguments passed the tool's schema (the tool's result presenter needs that). */
  validated: boolean;
  /** The validated arguments before a pre-execute rewrite; set only when rewritten. */
  originalArgs: Args | undefined;
  /** True when the tool's `resolvePaths` changed the validated arguments: `tool/result` then records the effective ones. */
  pathsResolved: boolean;
  allowedBy: 'pre-execute' | 'approval';
  /** The pre-execute reason, shown to the user when the call is put to approval. */
  askReason: string | undefined;
  /** The pre-execute tap that left the call at `ask` (or allowed it by a remembered grant); absent for the host default. */
  askBy: string | undefined;
  /** Set as soon as a stage decides the call will not dispatch. */
  outcome: Outcome | undefined;
  /** The outcome finalisation last produced, and its estimated size as JSON (for the log's byte bound). */
  final: Outcome | undefined;
  finalBytes: number;
  /** True once the `tool/result` event is logged: a late settlement is logged after it. */
  committed: boolean;
  /** A late settlement waiting for the `tool/result`; `null` once one was logged (one per call). */
  late: EventData<'tool/late-settlement'> | null | undefined;
  readonly context: ContextPart[];
}

/** Starts the record of a call. */
export function newCallRun(identity: CallIdentity, sent: unknown, parent: CallRun['parent']): CallRun {
  return {
    identity,
    sent,
    parent,
    cancellation: new Cancellation(),
    abortable: parent?.signal !== undefined,
    tool: undefined,
    parsed: {},
    args: {},
    validated: false,
    originalArgs: undefined,
    pathsResolved: false,
    allowedBy: 'pre-execute',
    askReason: undefined,
    askBy: undefined,
    outcome: undefined,
    final: undefined,
    finalBytes: 0,
    committed: false,
    late: undefined,
    context: [],
  };
}

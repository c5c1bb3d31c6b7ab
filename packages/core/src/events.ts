import type { z } from 'zod';
import type { Diagnostics } from './diagnostics.js';
import { DshError, ErrorCode, messageOf } from './errors.js';
import { coreEventDocs, type EventDoc } from './event-docs.js';
import {
  type approvalAnswerEvent,
  type approvalRequestEvent,
  type codeDispatchEvent,
  coreEventSchemas,
  type fsObservedEvent,
  type hookInvokedEvent,
  type hookResultEvent,
  type lateSettlementEvent,
  type sessionResumedEvent,
  type stepEndEvent,
  type stepStartEvent,
  type todoWriteEvent,
  type toolInterruptedEvent,
} from './event-types.js';
import { approxSize } from './internal/approx-size.js';
import { withDeadline } from './internal/deadline.js';
import type { JsonValue } from './json.js';
import type { CallIdentity, Outcome } from './outcome.js';

/** One part of a step's additional context: which call, which tap, what text. */
export interface ContextPart {
  readonly call: string;
  readonly by: string;
  readonly text: string;
}

/**
 * Event type → data. Plugins add their own types under their own prefix by
 * augmenting this interface and calling `host.events.define(type, schema)`.
 */
export interface EventDataMap {
  'tool/call': {
    readonly name: string;
    readonly args: unknown;
    readonly parent?: string;
    /** The subagent that made the call, for a nested loop's call. */
    readonly agent?: { readonly id: string; readonly type: string };
  };
  'tool/result': {
    readonly name: string;
    readonly outcome: Outcome;
    readonly args?: JsonValue;
    readonly originalArgs?: JsonValue;
    readonly synthetic?: true;
  };
  'context/message': { readonly text: string; readonly parts: readonly ContextPart[] };
  'todo/write': z.infer<typeof todoWriteEvent>;
  'fs/observed': z.infer<typeof fsObservedEvent>;
  'hook/invoked': z.infer<typeof hookInvokedEvent>;
  'hook/result': z.infer<typeof hookResultEvent>;
  'tool/code-dispatch': z.infer<typeof codeDispatchEvent>;
  'tool/late-settlement': z.infer<typeof lateSettlementEvent>;
  'approval/request': z.infer<typeof approvalRequestEvent>;
  'approval/answer': z.infer<typeof approvalAnswerEvent>;
  'tool/interrupted': z.infer<typeof toolInterruptedEvent>;
  'session/resumed': z.infer<typeof sessionResumedEvent>;
  'step/start': z.infer<typeof stepStartEvent>;
  'step/end': z.infer<typeof stepEndEvent>;
}

/** A known event type. */
export type EventType = keyof EventDataMap;
/** The data an event of type `T` carries. */
export type EventData<T extends EventType> = EventDataMap[T];

/** The envelope of every session event; `seq` rises by one with no gaps. */
export interface SessionEvent<T extends EventType = EventType> {
  readonly seq: number;
  readonly at: string;
  readonly session: string;
  readonly type: T;
  readonly call?: string;
  readonly token?: string;
  readonly data: EventData<T>;
}

/** Any session event, discriminated by `type`. */
export type AnySessionEvent = { [T in EventType]: SessionEvent<T> }[EventType];

/**
 * Where events go besides memory. `append` is called once per event, in
 * `seq` order; it may return a promise that settles when the event is
 * durable. `flush` settles when everything appended so far is durable.
 */
export interface EventSink {
  append(event: AnySessionEvent): void | Promise<void>;
  flush?(): Promise<void>;
  close?(): Promise<void>;
}

/** What the in-memory session log has let go of to stay within its bounds (the sink still has it all). */
export interface DroppedEvents {
  /** How many of the oldest events `list()` no longer holds. */
  readonly events: number;
  /** Their estimated size, as JSON. */
  readonly bytes: number;
  /** The `seq` of the newest dropped event; `list()` starts after it. 0 while nothing was dropped. */
  readonly throughSeq: number;
}

/** How many events the log keeps in memory by default. */
export const defaultRetainEvents = 10_000;
/** How many bytes (estimated as JSON) of events the log keeps in memory by default: 16 MiB. */
export const defaultRetainEventBytes = 16 * 1024 * 1024;

/** Options of the session log. */
export interface EventLogOptions {
  readonly session: string;
  readonly sink?: EventSink | undefined;
  /** How many events `list()` keeps in memory: {@link defaultRetainEvents} when absent. */
  readonly retain?: number | undefined;
  /** How many bytes of events (estimated as JSON) `list()` keeps: {@link defaultRetainEventBytes} when absent. */
  readonly retainBytes?: number | undefined;
  /** How long a sink may take to make one event durable. */
  readonly sinkTimeoutMs: number;
  readonly diagnostics: Diagnostics;
}

/** About what an event's envelope (seq, time, session, field names) adds to its data, as JSON. */
const envelopeBytes = 64;

const corePrefixes = ['tool/', 'context/', 'todo/', 'fs/', 'hook/', 'approval/', 'session/', 'step/'];

function checkDoc(type: string, schema: z.ZodType, doc: EventDoc): void {
  if (
    typeof doc !== 'object' ||
    doc === null ||
    typeof doc.meaning !== 'string' ||
    doc.meaning.trim() === '' ||
    /[\r\n]/.test(doc.meaning)
  ) {
    throw new DshError(ErrorCode.INVALID_OPTIONS, `event type "${type}": the meaning must be one non-empty line`);
  }
  const parsed = schema.safeParse(doc.example);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'data';
    throw new DshError(
      ErrorCode.INVALID_EVENT_DATA,
      `event type "${type}": the example fails the schema at ${where}: ${issue?.message ?? 'invalid'}`,
    );
  }
}

/**
 * The session log: assigns `seq`, keeps events in memory, writes them to the
 * sink in order and tells subscribers. A failing sink is recorded as a
 * diagnostic and never throws into the pipeline.
 */
export class EventLog {
  readonly session: string;
  readonly sink: EventSink | undefined;
  readonly #schemas = new Map<string, z.ZodType>(Object.entries(coreEventSchemas));
  readonly #docs = new Map<string, EventDoc>(Object.entries(coreEventDocs));
  // The retained events are #events[#head..]; the slots before #head are released and compacted away in batches.
  readonly #events: (AnySessionEvent | undefined)[] = [];
  readonly #sizes: number[] = [];
  #head = 0;
  #bytes = 0;
  #droppedEvents = 0;
  #droppedBytes = 0;
  #droppedSeq = 0;
  readonly #listeners = new Set<(event: AnySessionEvent) => void>();
  readonly #retain: number;
  readonly #retainBytes: number;
  readonly #sinkTimeoutMs: number;
  readonly #diagnostics: Diagnostics;
  #seq = 0;
  #lastMs = 0;
  #lastAt = '';

  constructor(options: EventLogOptions) {
    this.session = options.session;
    this.sink = options.sink;
    this.#retain = options.retain ?? defaultRetainEvents;
    this.#retainBytes = options.retainBytes ?? defaultRetainEventBytes;
    this.#sinkTimeoutMs = options.sinkTimeoutMs;
    this.#diagnostics = options.diagnostics;
  }

  /**
   * Registers a plugin's event type with the schema its data must pass, and
   * for the catalog its meaning and an example (checked against the schema).
   * Core's prefixes (`tool/`, `fs/`, …) and known types are refused.
   */
  define(type: string, schema: z.ZodType, doc?: EventDoc): () => void {
    if (this.#schemas.has(type)) {
      throw new DshError(ErrorCode.DUPLICATE_EVENT_TYPE, `event type "${type}" is already defined`);
    }
    if (!/^[a-z][a-z0-9-]*\/[a-z0-9-/]+$/.test(type) || corePrefixes.some((p) => type.startsWith(p))) {
      throw new DshError(
        ErrorCode.INVALID_OPTIONS,
        `event type "${type}" must look like "<plugin>/<event>" and not use a core prefix (${corePrefixes.join(', ')})`,
      );
    }
    if (doc !== undefined) checkDoc(type, schema, doc);
    this.#schemas.set(type, schema);
    if (doc !== undefined) this.#docs.set(type, Object.freeze({ meaning: doc.meaning, example: doc.example }));
    return () => {
      if (this.#schemas.get(type) !== schema) return;
      this.#schemas.delete(type);
      this.#docs.delete(type);
    };
  }

  /** The meaning and example of every event type that has them, for catalogs. */
  docs(): ReadonlyMap<string, EventDoc> {
    return new Map(this.#docs);
  }

  /** The schema of every known event type, for catalogs. */
  schemas(): ReadonlyMap<string, z.ZodType> {
    return new Map(this.#schemas);
  }

  /** Validates data a tool or plugin wants to log; throws `INVALID_EVENT_DATA` or `UNKNOWN_EVENT_TYPE`. */
  check(type: string, data: unknown): unknown {
    const schema = this.#schemas.get(type);
    if (schema === undefined) {
      throw new DshError(ErrorCode.UNKNOWN_EVENT_TYPE, `event type "${type}" is not defined; call host.events.define first`);
    }
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'data';
      throw new DshError(ErrorCode.INVALID_EVENT_DATA, `"${type}" event: ${where}: ${issue?.message ?? 'invalid'}`);
    }
    return data;
  }

  /**
   * Appends an event. When a sink is attached, returns a promise that
   * settles with `undefined` once the sink holds the event, or with the
   * error that kept it from doing so. Never throws. `dataBytes` is the
   * caller's estimate of the data's size as JSON when a walk it already made
   * (a parse, a finalisation) knows it; without it the data is walked here.
   */
  append<T extends EventType>(
    type: T,
    data: EventData<T>,
    call?: CallIdentity,
    dataBytes?: number,
  ): Promise<Error | undefined> | undefined {
    this.#seq += 1;
    const at = this.#now();
    const event = Object.freeze(
      call === undefined
        ? { seq: this.#seq, at, session: this.session, type, data }
        : { seq: this.#seq, at, session: this.session, type, call: call.id, token: call.token, data },
    ) as SessionEvent<T>;
    const any = event as unknown as AnySessionEvent;
    const envelope = envelopeBytes + type.length + (call === undefined ? 0 : call.id.length + call.token.length);
    this.#keep(any, envelope + (dataBytes ?? approxSize(data)));
    if (this.#listeners.size > 0) this.#tell(any, call?.id);
    return this.sink === undefined ? undefined : this.#write(any);
  }

  /** Keeps `event` in memory, letting the oldest go while the count or the bytes are over their bounds. */
  #keep(event: AnySessionEvent, size: number): void {
    const events = this.#events;
    const sizes = this.#sizes;
    events.push(event);
    sizes.push(size);
    this.#bytes += size;
    // The newest event always stays, however large: list() shows the latest state.
    while (events.length - this.#head > 1 && (events.length - this.#head > this.#retain || this.#bytes > this.#retainBytes)) {
      const dropped = sizes[this.#head] ?? 0;
      this.#droppedSeq = events[this.#head]?.seq ?? this.#droppedSeq;
      events[this.#head] = undefined;
      this.#head += 1;
      this.#bytes -= dropped;
      this.#droppedEvents += 1;
      this.#droppedBytes += dropped;
    }
    if (this.#head >= 1024 && this.#head * 2 >= events.length) {
      events.splice(0, this.#head);
      sizes.splice(0, this.#head);
      this.#head = 0;
    }
  }

  #tell(event: AnySessionEvent, call: string | undefined): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#diagnostics.record('SUBSCRIBER_FAILED', 'events', messageOf(error), call);
      }
    }
  }

  /** The ISO time, formatted once per millisecond: formatting costs more than the rest of an append. */
  #now(): string {
    const ms = Date.now();
    if (ms !== this.#lastMs) {
      this.#lastMs = ms;
      this.#lastAt = new Date(ms).toISOString();
    }
    return this.#lastAt;
  }

  #write(event: AnySessionEvent): Promise<Error | undefined> {
    let pending: void | Promise<void>;
    try {
      pending = this.sink?.append(event);
    } catch (error) {
      return Promise.resolve(this.#sinkFailed(event, error));
    }
    if (pending === undefined || typeof (pending as Promise<void>).then !== 'function') return Promise.resolve(undefined);
    return withDeadline(pending, this.#sinkTimeoutMs).then(
      (settled) =>
        settled.timedOut ? this.#sinkFailed(event, new Error(`the sink took longer than ${this.#sinkTimeoutMs} ms`)) : undefined,
      (error: unknown) => this.#sinkFailed(event, error),
    );
  }

  #sinkFailed(event: AnySessionEvent, error: unknown): Error {
    const message = `event ${event.seq} (${event.type}) was not written: ${messageOf(error)}`;
    this.#diagnostics.record(ErrorCode.SINK_FAILED, 'sink', message, event.call);
    return error instanceof Error ? error : new Error(message);
  }

  /** The events kept in memory, oldest first: the newest within the count and byte bounds. */
  list(): readonly AnySessionEvent[] {
    return this.#events.slice(this.#head) as AnySessionEvent[];
  }

  /** What `list()` no longer holds: nothing until the bounds were first reached. */
  dropped(): DroppedEvents {
    return Object.freeze({ events: this.#droppedEvents, bytes: this.#droppedBytes, throughSeq: this.#droppedSeq });
  }

  /** The last `seq` handed out. */
  get lastSeq(): number {
    return this.#seq;
  }

  /**
   * Continues a session log whose last event was `seq`: the next event gets
   * `seq + 1`. Only before this log handed out any `seq` (a resume).
   */
  continueFrom(seq: number): void {
    if (this.#seq !== 0) throw new DshError(ErrorCode.RESUME_REFUSED, `this host has already logged ${this.#seq} events`);
    this.#seq = seq;
  }

  /** Calls `listener` synchronously for every new event; returns the way to stop. */
  subscribe(listener: (event: AnySessionEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Settles when the sink holds every event appended so far (or failed to). */
  async flush(): Promise<void> {
    if (this.sink?.flush === undefined) return;
    try {
      const settled = await withDeadline(this.sink.flush(), this.#sinkTimeoutMs);
      if (settled.timedOut) this.#diagnostics.record(ErrorCode.SINK_FAILED, 'sink', 'flush timed out');
    } catch (error) {
      this.#diagnostics.record(ErrorCode.SINK_FAILED, 'sink', `flush failed: ${messageOf(error)}`);
    }
  }
}

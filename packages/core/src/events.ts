import type { z } from 'zod';
import type { Diagnostics } from './diagnostics.js';
import { DshError, ErrorCode, messageOf } from './errors.js';
import {
  type codeDispatchEvent,
  coreEventSchemas,
  type fsObservedEvent,
  type hookInvokedEvent,
  type hookResultEvent,
  type todoWriteEvent,
} from './event-types.js';
import { withDeadline } from './internal/deadline.js';
import type { JsonValue } from './json.js';
import type { Outcome } from './outcome.js';

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
  'tool/call': { readonly name: string; readonly args: unknown; readonly parent?: string };
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

/** Options of the session log. */
export interface EventLogOptions {
  readonly session: string;
  readonly sink?: EventSink | undefined;
  /** How many events `list()` keeps in memory; all when absent. */
  readonly retain?: number | undefined;
  /** How long a sink may take to make one event durable. */
  readonly sinkTimeoutMs: number;
  readonly diagnostics: Diagnostics;
}

const corePrefixes = ['tool/', 'context/', 'todo/', 'fs/', 'hook/'];

/**
 * The session log: assigns `seq`, keeps events in memory, writes them to the
 * sink in order and tells subscribers. A failing sink is recorded as a
 * diagnostic and never throws into the pipeline.
 */
export class EventLog {
  readonly session: string;
  readonly sink: EventSink | undefined;
  readonly #schemas = new Map<string, z.ZodType>(Object.entries(coreEventSchemas));
  readonly #events: AnySessionEvent[] = [];
  readonly #listeners = new Set<(event: AnySessionEvent) => void>();
  readonly #retain: number;
  readonly #sinkTimeoutMs: number;
  readonly #diagnostics: Diagnostics;
  #seq = 0;
  #lastMs = 0;
  #lastAt = '';

  constructor(options: EventLogOptions) {
    this.session = options.session;
    this.sink = options.sink;
    this.#retain = options.retain ?? Number.POSITIVE_INFINITY;
    this.#sinkTimeoutMs = options.sinkTimeoutMs;
    this.#diagnostics = options.diagnostics;
  }

  /**
   * Registers a plugin's event type with the schema its data must pass.
   * Core's prefixes (`tool/`, `fs/`, …) and known types are refused.
   */
  define(type: string, schema: z.ZodType): () => void {
    if (this.#schemas.has(type)) {
      throw new DshError(ErrorCode.DUPLICATE_EVENT_TYPE, `event type "${type}" is already defined`);
    }
    if (!/^[a-z][a-z0-9-]*\/[a-z0-9-/]+$/.test(type) || corePrefixes.some((p) => type.startsWith(p))) {
      throw new DshError(
        ErrorCode.INVALID_OPTIONS,
        `event type "${type}" must look like "<plugin>/<event>" and not use a core prefix (${corePrefixes.join(', ')})`,
      );
    }
    this.#schemas.set(type, schema);
    return () => {
      if (this.#schemas.get(type) === schema) this.#schemas.delete(type);
    };
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
   * error that kept it from doing so. Never throws.
   */
  append<T extends EventType>(
    type: T,
    data: EventData<T>,
    ref?: { readonly call: string; readonly token: string },
  ): Promise<Error | undefined> | undefined {
    this.#seq += 1;
    const at = this.#now();
    const event = Object.freeze(
      ref === undefined
        ? { seq: this.#seq, at, session: this.session, type, data }
        : { seq: this.#seq, at, session: this.session, type, call: ref.call, token: ref.token, data },
    ) as SessionEvent<T>;
    const any = event as unknown as AnySessionEvent;
    this.#events.push(any);
    if (this.#events.length > this.#retain * 2) this.#events.splice(0, this.#events.length - this.#retain);
    if (this.#listeners.size > 0) this.#tell(any, ref?.call);
    return this.sink === undefined ? undefined : this.#write(any);
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

  /** The events kept in memory, oldest first (all of them unless `retain` was set). */
  list(): readonly AnySessionEvent[] {
    const start = Math.max(0, this.#events.length - this.#retain);
    return this.#events.slice(start);
  }

  /** The last `seq` handed out. */
  get lastSeq(): number {
    return this.#seq;
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

/** One event as the inbox keeps it: a session event with its data left as the log had it. */
export interface InboxEvent {
  readonly seq: number;
  readonly at: string;
  readonly session: string;
  readonly type: string;
  readonly call?: string;
  readonly token?: string;
  readonly data: unknown;
}

/** Where a session's events come from. */
export type SessionSource = 'live' | 'log' | 'restate' | 'dbos';

/** How a session stands, as the sessions list shows it. */
export type SessionStatus = 'running' | 'waiting' | 'done' | 'failed';

/** One line of the sessions list. */
export interface SessionSummary {
  readonly id: string;
  readonly source: SessionSource;
  readonly label: string;
  readonly status: SessionStatus;
  readonly events: number;
  readonly waiting: number;
  readonly lastAt: string | undefined;
  readonly problems: readonly string[];
}

/** What the store tells its listeners: a new event of a session, or a session's new summary. */
export type StoreChange =
  | { readonly kind: 'event'; readonly session: string; readonly event: InboxEvent }
  | { readonly kind: 'session'; readonly summary: SessionSummary };

const maxProblems = 20;

/** Whether a source's sessions run on a durable engine: worked in steps, each by whichever worker the engine picks. */
export function isDurable(source: SessionSource): boolean {
  return source === 'restate' || source === 'dbos';
}

class SessionRecord {
  readonly events: InboxEvent[] = [];
  dropped = 0;
  ended = false;
  failed = false;
  readonly problems: string[] = [];
  readonly openCalls = new Set<string>();
  readonly asking = new Set<string>();
  constructor(
    readonly id: string,
    readonly source: SessionSource,
    public label: string,
  ) {}

  summary(): SessionSummary {
    // A durable session has no writer between its steps: it runs while a call of it has no result.
    const idle = isDurable(this.source) && this.openCalls.size === 0;
    const status: SessionStatus =
      this.asking.size > 0 && !this.ended
        ? 'waiting'
        : !this.ended && !idle
          ? 'running'
          : this.failed || this.openCalls.size > 0
            ? 'failed'
            : 'done';
    return {
      id: this.id,
      source: this.source,
      label: this.label,
      status,
      events: this.events.length + this.dropped,
      waiting: this.ended ? 0 : this.asking.size,
      lastAt: this.events.at(-1)?.at,
      problems: [...this.problems],
    };
  }
}

/**
 * The sessions the inbox shows, fed by its sources: events in order per
 * session (at most `retain` of them), and who waits for a person.
 */
export class SessionStore {
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #listeners = new Set<(change: StoreChange) => void>();

  constructor(readonly retain: number) {}

  /** Adds a session, or finds the one of that id. */
  open(id: string, source: SessionSource, label = id): void {
    const existing = this.#sessions.get(id);
    if (existing !== undefined) {
      existing.ended = false;
      this.#changed(existing);
      return;
    }
    const record = new SessionRecord(id, source, label);
    this.#sessions.set(id, record);
    this.#changed(record);
  }

  has(id: string): boolean {
    return this.#sessions.has(id);
  }

  /** Appends an event; an event whose `seq` is not after the last one is a repeat and ignored. */
  append(id: string, event: InboxEvent): void {
    const record = this.#sessions.get(id);
    if (record === undefined) return;
    const last = record.events.at(-1);
    if (last !== undefined && event.seq <= last.seq) return;
    record.events.push(event);
    if (record.events.length > this.retain) {
      const drop = record.events.length - this.retain;
      record.events.splice(0, drop);
      record.dropped += drop;
    }
    const before = summaryKey(record);
    track(record, event);
    for (const listener of this.#listeners) listener({ kind: 'event', session: id, event });
    if (summaryKey(record) !== before || record.events.length === 1) this.#changed(record);
  }

  /** Marks a session ended (its host closed, its log's writer gone); `failed` when it ended badly. */
  end(id: string, failed = false): void {
    const record = this.#sessions.get(id);
    if (record === undefined || (record.ended && record.failed === failed)) return;
    record.ended = true;
    record.failed = failed;
    this.#changed(record);
  }

  /** Records a problem of a session's source (a corrupt line, a vanished file), shown with the session. */
  problem(id: string, message: string): void {
    const record = this.#sessions.get(id);
    if (record === undefined) return;
    record.problems.push(message);
    if (record.problems.length > maxProblems) record.problems.shift();
    this.#changed(record);
  }

  /** Forgets a session's events (its log was replaced) while keeping it listed. */
  reset(id: string): void {
    const record = this.#sessions.get(id);
    if (record === undefined) return;
    record.events.length = 0;
    record.dropped = 0;
    record.openCalls.clear();
    record.asking.clear();
    this.#changed(record);
  }

  sessions(): SessionSummary[] {
    return [...this.#sessions.values()].map((r) => r.summary());
  }

  summary(id: string): SessionSummary | undefined {
    return this.#sessions.get(id)?.summary();
  }

  /** The events kept for a session, and how many older ones were let go. */
  events(id: string): { readonly events: readonly InboxEvent[]; readonly dropped: number } | undefined {
    const record = this.#sessions.get(id);
    return record === undefined ? undefined : { events: record.events, dropped: record.dropped };
  }

  /** True while the session's call has an approval request without an answer. */
  isAsking(id: string, call: string): boolean {
    return this.#sessions.get(id)?.asking.has(call) ?? false;
  }

  /** True when the session logged a `tool/call` of that id. */
  hasCall(id: string, call: string): boolean {
    const record = this.#sessions.get(id);
    return record !== undefined && (record.openCalls.has(call) || record.events.some((e) => e.call === call && e.type === 'tool/call'));
  }

  isEnded(id: string): boolean {
    return this.#sessions.get(id)?.ended ?? true;
  }

  /** Where the session's events come from; `undefined` for an unknown session. */
  sourceOf(id: string): SessionSource | undefined {
    return this.#sessions.get(id)?.source;
  }

  subscribe(listener: (change: StoreChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(record: SessionRecord): void {
    const summary = record.summary();
    for (const listener of this.#listeners) listener({ kind: 'session', summary });
  }
}

function track(record: SessionRecord, event: InboxEvent): void {
  if (event.call === undefined) return;
  switch (event.type) {
    case 'tool/call':
      record.openCalls.add(event.call);
      break;
    case 'approval/request':
      record.asking.add(event.call);
      break;
    case 'approval/answer':
      record.asking.delete(event.call);
      break;
    case 'tool/result':
      record.openCalls.delete(event.call);
      record.asking.delete(event.call);
      break;
  }
}

function summaryKey(record: SessionRecord): string {
  return `${record.asking.size}:${record.openCalls.size}`;
}

import { type EventData, type GateData, type GateVeto, z } from '@deepseek-ai/dsh-core';
import { FsErrorCode } from './errors.js';

/** What this session last saw at a path, as its `fs/observed` events say. */
export type Observation = EventData<'fs/observed'>;

/** Why the read-before-edit handler vetoed a mutation. */
export type VetoKind = 'not-read' | 'changed' | 'partial' | 'appeared';

const observedSchema = z.discriminatedUnion('state', [
  z.object({
    state: z.literal('present'),
    path: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    size: z.number(),
    mtimeMs: z.number(),
    complete: z.boolean(),
  }),
  z.object({ state: z.literal('absent'), path: z.string() }),
]);

/** The error code a veto of each kind becomes in the tool's outcome. */
export const vetoCodes: Readonly<Record<VetoKind, string>> = {
  'not-read': FsErrorCode.NOT_READ,
  changed: FsErrorCode.CHANGED_SINCE_READ,
  partial: FsErrorCode.PARTIAL_READ,
  appeared: FsErrorCode.APPEARED_SINCE_READ,
};

/**
 * Read-before-edit state: the last observation per real path, built only
 * from `fs/observed` events, so it can be rebuilt from a session log. The
 * check is a compare-and-swap on content (SHA-256), never on mtime: a file
 * that was touched but not changed may still be edited.
 */
export class ReadLedger {
  readonly #records = new Map<string, Observation>();

  /** A ledger holding the `fs/observed` events among `events` (others are skipped), in order. */
  static fromEvents(events: readonly unknown[]): ReadLedger {
    const ledger = new ReadLedger();
    ledger.replay(events);
    return ledger;
  }

  /** Applies the `fs/observed` events among `events`, in the order given. */
  replay(events: readonly unknown[]): void {
    for (const event of events) {
      const e = event as { type?: unknown; data?: unknown } | null;
      if (e?.type !== 'fs/observed') continue;
      const parsed = observedSchema.safeParse(e.data);
      if (parsed.success) this.observe(parsed.data);
    }
  }

  /** Records one observation, replacing what was known of that path. */
  observe(observation: Observation): void {
    this.#records.set(observation.path, observation);
  }

  /** The last observation of a real path. */
  get(path: string): Observation | undefined {
    return this.#records.get(path);
  }

  /** How many paths have an observation. */
  get size(): number {
    return this.#records.size;
  }

  /**
   * Whether a mutation may go ahead. `write` with `expectedSha256: null`
   * (nothing there now) always may; replacing an existing file needs a
   * complete read of exactly that content; an edit needs any read of it.
   */
  check(kind: 'write' | 'edit', data: GateData<'fs/write-intent'> | GateData<'fs/edit-intent'>): VetoKind | undefined {
    if (data.expectedSha256 === null) return undefined;
    const seen = this.#records.get(data.path);
    if (seen === undefined) return 'not-read';
    if (seen.state === 'absent') return 'appeared';
    if (seen.sha256 !== data.expectedSha256) return 'changed';
    if (kind === 'write' && !seen.complete) return 'partial';
    return undefined;
  }
}

/** The reason the model reads for each kind of veto: what happened, and what to do. */
export function vetoReason(kind: VetoKind, path: string): GateVeto {
  switch (kind) {
    case 'not-read':
      return { code: vetoCodes['not-read'], veto: `${path} has not been read in this session. Read it first, then retry the change.` };
    case 'changed':
      return {
        code: vetoCodes.changed,
        veto: `${path} has changed since it was last read (its content differs). Read it again, then retry the change.`,
      };
    case 'partial':
      return {
        code: vetoCodes.partial,
        veto: `only part of ${path} was read, so overwriting it could lose what was not seen. Read all of it (no offset or limit), or use edit.`,
      };
    case 'appeared':
      return {
        code: vetoCodes.appeared,
        veto: `a file has appeared at ${path} since it was seen absent. Read it first, then retry the change.`,
      };
  }
}

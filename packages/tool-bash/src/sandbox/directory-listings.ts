import { type Dirent, readdirSync, type Stats, statfsSync, statSync } from 'node:fs';

/**
 * What a glob walk listed, kept between calls and reused only while each
 * directory is provably unchanged: the same device and inode at that path,
 * and the same change time (`ctime`, which the kernel sets on every entry
 * added, removed or renamed in it, and which no program can set back).
 * A new `.env` anywhere changes its directory's ctime; a renamed or replaced
 * folder, or a mount over one, changes what its path stats to.
 *
 * Two holes are closed by never keeping a listing for them:
 * - a change in the same clock tick as the listing (ctime too coarse to tell
 *   them apart): a directory changed within {@link recentMs} of the listing is
 *   listed again on every call until it has been quiet that long;
 * - file systems whose directories may change without a ctime update
 *   (procfs, FUSE, network file systems): only the local ones below are kept.
 */
export class DirectoryListings {
  /** Listings kept from the last walk. */
  #kept = new Map<string, Listing>();
  /** This walk's listings, each directory checked once per walk (null: it could not be listed). */
  #walk = new Map<string, readonly Dirent[] | null>();
  /** What the next walk may reuse: what this walk kept or listed (what it no longer visits is dropped). */
  #next = new Map<string, Listing>();
  readonly #trusted = new Map<number, boolean>();
  readonly #now: () => number;

  /** `now`: the clock a listing's age is measured against (the wall clock). */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** How many directories' listings are kept for the next walk. */
  get size(): number {
    return this.#kept.size;
  }

  /** Starts a walk: listings are checked once per walk. */
  begin(): void {
    this.#walk = new Map();
    this.#next = new Map();
  }

  /** Ends a walk: what it did not visit is forgotten, so the cache never outgrows one walk. */
  end(): void {
    this.#kept = this.#next;
    this.#next = new Map();
    this.#walk = new Map();
  }

  /** The entries of `dir` (following a link to it), or none when it is missing or not a directory. */
  list(dir: string): readonly Dirent[] {
    let entries = this.#walk.get(dir);
    if (entries === undefined) {
      entries = this.#list(dir);
      this.#walk.set(dir, entries);
    }
    return entries ?? [];
  }

  /**
   * The entries of `dir` if this walk has read them; undefined when it has
   * not, or could not (a directory that cannot be listed may still be searched).
   */
  listed(dir: string): readonly Dirent[] | undefined {
    return this.#walk.get(dir) ?? undefined;
  }

  /** null: missing, not a directory, or not readable. */
  #list(dir: string): readonly Dirent[] | null {
    const startedAt = this.#now();
    let stats: Stats | undefined;
    try {
      stats = statSync(dir, { throwIfNoEntry: false });
    } catch {
      return null; // not a directory on the way, or no access: nothing matches below it
    }
    if (stats === undefined || !stats.isDirectory()) return null;
    const kept = this.#kept.get(dir);
    if (kept !== undefined && kept.dev === stats.dev && kept.ino === stats.ino && kept.ctimeMs === stats.ctimeMs) {
      this.#next.set(dir, kept);
      return kept.entries;
    }
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return null;
    }
    // Listed after the stat: a change after that stat moves ctime past the one kept, so it is seen.
    if (stats.ctimeMs < startedAt - recentMs && this.#trustedDevice(dir, stats.dev)) {
      this.#next.set(dir, { dev: stats.dev, ino: stats.ino, ctimeMs: stats.ctimeMs, entries });
    }
    return entries;
  }

  #trustedDevice(dir: string, dev: number): boolean {
    let trusted = this.#trusted.get(dev);
    if (trusted === undefined) {
      try {
        trusted = ctimeFileSystems.has(statfsSync(dir).type);
      } catch {
        trusted = false;
      }
      this.#trusted.set(dev, trusted);
    }
    return trusted;
  }
}

interface Listing {
  readonly dev: number;
  readonly ino: number;
  readonly ctimeMs: number;
  readonly entries: readonly Dirent[];
}

/**
 * How long a directory must have been unchanged before its listing is kept
 * (ms): more than a clock tick and the one-second timestamps of some file
 * systems (ext4 with small inodes), so a later change always lands on a
 * later ctime.
 */
export const recentMs = 2_500;

/** Local file systems that update a directory's ctime on every change to its entries (statfs magic numbers). */
const ctimeFileSystems = new Set<number>([
  0xef53, // ext2/3/4
  0x01021994, // tmpfs
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x794c7630, // overlayfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
]);

import type { ResolvedOptions } from '../options.js';
import type { ReadLedger } from '../read-ledger.js';
import type { Workspace } from '../workspace.js';

/** The name of the read-before-edit handler on the `fs/*` gates. */
export const readBeforeEditName = 'tool-fs/read-before-edit';

/** What every tool body of one plugin instance shares. */
export interface FsRuntime {
  readonly workspace: Workspace;
  readonly options: ResolvedOptions;
  readonly ledger: ReadLedger;
  /**
   * The ripgrep executable to search with, or `undefined` for the built-in
   * search. A promise: with `search: 'auto'` the probe runs while the host
   * starts, and the first `grep` waits for it (registration does not).
   */
  readonly ripgrep: Promise<string | undefined>;
}

import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { z } from '@deepseek-ai/dsh-core';
import type { Anchors } from '@deepseek-ai/dsh-rules';
import { RuleSet, skippedByClaude } from '@deepseek-ai/dsh-rules';
import { PermissionsError, PermissionsErrorCode } from './errors.js';
import { LockTimeout, withFileLock, writeAtomically } from './internal/file-lock.js';
import { parseRule } from './rules.js';

/** Where a remembered approval lives: this session's memory, or the project's grants file. */
export type GrantScope = 'session' | 'project';

/** A remembered approval: allow rules the user chose when answering a prompt. */
export interface Grant {
  readonly id: string;
  readonly scope: GrantScope;
  /** Allow rules in Claude Code's syntax (`Bash(npm test)`, `Edit(//repo/src/**)`). */
  readonly rules: readonly string[];
  /** The agent it applies to; grants never apply to another agent. */
  readonly agent: string;
  /** The project directory it applies to. */
  readonly project: string;
  /** The session that recorded it. */
  readonly session: string;
  readonly createdAt: string;
  /** The dsh tool of the call whose approval recorded it. */
  readonly tool?: string;
}

/** What recording a grant needs besides its scope and rules. */
export interface GrantMeta {
  readonly session: string;
  readonly tool?: string;
}

const grantSchema = z.object({
  id: z.string().min(1),
  scope: z.literal('project'),
  rules: z.array(z.string()).min(1),
  agent: z.string(),
  project: z.string(),
  session: z.string(),
  createdAt: z.string(),
  tool: z.string().optional(),
});

const fileSchema = z.looseObject({ version: z.literal(1), grants: z.array(z.unknown()) });

interface ProjectFile {
  /** The file's JSON as read, kept whole so a rewrite loses nothing it does not understand. */
  readonly raw: { version: 1; grants: unknown[]; [key: string]: unknown };
  readonly grants: readonly Grant[];
  readonly skipped: readonly string[];
}

/** Options of a {@link GrantStore}. */
export interface GrantStoreOptions {
  /** The project grants file; absent: project grants are off. */
  readonly file: string | undefined;
  readonly project: string;
  readonly agent: string;
  readonly anchors: Anchors;
  readonly lockTimeoutMs: number;
  /** Told once per file version about a grants file that cannot be used. */
  readonly onProblem: (error: PermissionsError) => void;
}

/**
 * Remembered approvals of one agent in one project: session grants in
 * memory, project grants in a JSON file written atomically under a lock.
 * A corrupt file is reported and never overwritten.
 */
export class GrantStore {
  readonly #o: GrantStoreOptions;
  #session: Grant[] = [];
  #sessionSet: RuleSet | undefined;
  // The project file as last read: inode, size and mtime (ino -1: to be read again; -2: absent). Numbers, not a
  // string: formatting them on every call cost more than comparing them.
  #ino = -1;
  #size = 0;
  #mtimeMs = 0;
  #projectSet: RuleSet | undefined;
  #projectGrants: readonly Grant[] = [];

  constructor(options: GrantStoreOptions) {
    this.#o = options;
  }

  /** The grants file, when project grants are on. */
  get file(): string | undefined {
    return this.#o.file;
  }

  /**
   * The grants that apply now, as allow-rule sets. Synchronous: the project
   * file is re-read only when its inode, size or mtime changed.
   */
  ruleSets(): RuleSet[] {
    const sets: RuleSet[] = [];
    if (this.#session.length > 0) {
      this.#sessionSet ??= toRuleSet(this.#session, this.#o.anchors);
      sets.push(this.#sessionSet);
    }
    this.#refresh();
    if (this.#projectSet !== undefined) sets.push(this.#projectSet);
    return sets;
  }

  #refresh(): void {
    const file = this.#o.file;
    if (file === undefined) return;
    const info = statSync(file, { throwIfNoEntry: false });
    const ino = info === undefined ? -2 : info.ino;
    const size = info === undefined ? 0 : info.size;
    const mtimeMs = info === undefined ? 0 : info.mtimeMs;
    if (ino === this.#ino && size === this.#size && mtimeMs === this.#mtimeMs) return;
    this.#ino = ino;
    this.#size = size;
    this.#mtimeMs = mtimeMs;
    this.#projectSet = undefined;
    this.#projectGrants = [];
    if (info === undefined) return;
    try {
      const parsed = parseProjectFile(readFileSync(file, 'utf8'), file);
      this.#useProject(parsed);
    } catch (error) {
      this.#o.onProblem(asGrantsError(error, file));
    }
  }

  #useProject(parsed: ProjectFile): void {
    for (const why of parsed.skipped) {
      this.#o.onProblem(new PermissionsError(PermissionsErrorCode.GRANTS_FILE_CORRUPT, why, { file: this.#o.file }));
    }
    this.#projectGrants = parsed.grants.filter((g) => g.agent === this.#o.agent && g.project === this.#o.project);
    this.#projectSet = this.#projectGrants.length > 0 ? toRuleSet(this.#projectGrants, this.#o.anchors) : undefined;
  }

  /**
   * Lists grants: this session's, then the project file's for this agent
   * and project (every agent's and project's with `all`). Rejects with
   * `GRANTS_FILE_CORRUPT` when the file cannot be read as a grants file.
   */
  async list(options: { readonly all?: boolean } = {}): Promise<Grant[]> {
    const file = this.#o.file;
    const project = file === undefined ? undefined : await readProjectFile(file);
    const grants = project?.grants ?? [];
    const mine = options.all === true ? grants : grants.filter((g) => g.agent === this.#o.agent && g.project === this.#o.project);
    return [...this.#session, ...mine];
  }

  /** Records a grant. Rejects with `INVALID_GRANT`, or a grants-file code (the file is then left as it was). */
  async add(scope: GrantScope, rules: readonly string[], meta: GrantMeta): Promise<Grant> {
    if (rules.length === 0) throw new PermissionsError(PermissionsErrorCode.INVALID_GRANT, 'a grant needs at least one rule');
    for (const rule of rules) {
      try {
        if (skippedByClaude(parseRule(rule), 'allow')) {
          throw new Error('an allow rule may hold a wildcard in its tool name only as "mcp__<server>__*"; it would allow nothing');
        }
      } catch (error) {
        throw new PermissionsError(
          PermissionsErrorCode.INVALID_GRANT,
          `cannot remember ${JSON.stringify(rule)}: ${(error as Error).message}`,
          {
            rule,
            cause: error,
          },
        );
      }
    }
    const grant: Grant = Object.freeze({
      id: `grant-${randomUUID().slice(0, 13)}`,
      scope,
      rules: Object.freeze(rules.map((r) => r.trim())),
      agent: this.#o.agent,
      project: this.#o.project,
      session: meta.session,
      createdAt: new Date().toISOString(),
      ...(meta.tool === undefined ? {} : { tool: meta.tool }),
    });
    if (scope === 'session') {
      this.#session = [...this.#session, grant];
      this.#sessionSet = undefined;
      return grant;
    }
    const file = this.#requireFile();
    await this.#locked(file, async () => {
      const current = await readProjectFile(file);
      const raw = current?.raw ?? { version: 1 as const, grants: [] };
      await write(file, { ...raw, grants: [...raw.grants, grant] });
    });
    this.#ino = -1;
    return grant;
  }

  /** Revokes a grant by id (of any agent, in the project file); resolves false when there is none. */
  async revoke(id: string): Promise<boolean> {
    if (this.#session.some((g) => g.id === id)) {
      this.#session = this.#session.filter((g) => g.id !== id);
      this.#sessionSet = undefined;
      return true;
    }
    const file = this.#o.file;
    if (file === undefined) return false;
    const removed = await this.#locked(file, async () => {
      const current = await readProjectFile(file);
      if (current === undefined) return false;
      const kept = current.raw.grants.filter((g) => (g as { id?: unknown } | null)?.id !== id);
      if (kept.length === current.raw.grants.length) return false;
      await write(file, { ...current.raw, grants: kept });
      return true;
    });
    this.#ino = -1;
    return removed;
  }

  #requireFile(): string {
    const file = this.#o.file;
    if (file === undefined) {
      throw new PermissionsError(
        PermissionsErrorCode.INVALID_GRANT,
        'project grants are off (grantsFile: false), so nothing can be remembered for the project',
      );
    }
    return file;
  }

  async #locked<T>(file: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await withFileLock(file, this.#o.lockTimeoutMs, fn);
    } catch (error) {
      if (error instanceof LockTimeout) {
        throw new PermissionsError(
          PermissionsErrorCode.GRANTS_LOCK_TIMEOUT,
          `could not lock ${file} within ${this.#o.lockTimeoutMs} ms (${error.lockPath} is held); nothing was written`,
          { file },
        );
      }
      throw asGrantsError(error, file);
    }
  }
}

async function readProjectFile(file: string): Promise<ProjectFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw asGrantsError(error, file);
  }
  return parseProjectFile(text, file);
}

function parseProjectFile(text: string, file: string): ProjectFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw corrupt(file, `it is not JSON (${(error as Error).message})`);
  }
  const shape = fileSchema.safeParse(json);
  if (!shape.success) throw corrupt(file, 'it is not {"version": 1, "grants": [...]}');
  const grants: Grant[] = [];
  const skipped: string[] = [];
  for (const [index, entry] of shape.data.grants.entries()) {
    const grant = grantSchema.safeParse(entry);
    const bad = grant.success ? grant.data.rules.find((r) => !parses(r)) : undefined;
    if (!grant.success || bad !== undefined) {
      skipped.push(
        `grants file ${file}: entry ${index} is not a valid grant${bad === undefined ? '' : ` (rule ${JSON.stringify(bad)})`}; it is ignored and kept`,
      );
      continue;
    }
    grants.push(Object.freeze({ ...grant.data, rules: Object.freeze(grant.data.rules) }) as Grant);
  }
  return { raw: shape.data as ProjectFile['raw'], grants, skipped };
}

function parses(rule: string): boolean {
  try {
    parseRule(rule);
    return true;
  } catch {
    return false;
  }
}

async function write(file: string, content: unknown): Promise<void> {
  await writeAtomically(file, `${JSON.stringify(content, null, 2)}\n`);
}

function corrupt(file: string, why: string): PermissionsError {
  return new PermissionsError(
    PermissionsErrorCode.GRANTS_FILE_CORRUPT,
    `the grants file ${file} cannot be used: ${why}; it was left untouched, fix or remove it to remember approvals for this project`,
    { file },
  );
}

function asGrantsError(error: unknown, file: string): PermissionsError {
  if (error instanceof PermissionsError) return error;
  return new PermissionsError(
    PermissionsErrorCode.GRANTS_FILE_UNWRITABLE,
    `the grants file ${file} could not be used: ${(error as Error).message}`,
    {
      file,
      cause: error,
    },
  );
}

function toRuleSet(grants: readonly Grant[], anchors: Anchors): RuleSet {
  const rules = grants.flatMap((g) =>
    g.rules.map((text) => ({ rule: parseRule(text), list: 'allow' as const, origin: { source: 'grant', grant: g.id } })),
  );
  return new RuleSet(rules, anchors);
}

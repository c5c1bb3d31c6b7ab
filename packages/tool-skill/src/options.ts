import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { DshError, ErrorCode, z } from '@deepseek-ai/dsh-core';

const positive = z.number().int().positive();
const rootSchema = z.union([z.string().min(1), z.strictObject({ path: z.string().min(1), source: z.string().min(1).optional() })]);

/** The zod schema of the discovery options (shared by `discoverSkills` and `toolSkill`). */
export const discoverOptionsSchema = z.strictObject({
  projectDir: z.string().min(1).optional(),
  homeDir: z.string().min(1).optional(),
  roots: z.array(rootSchema).optional(),
  userSkills: z.boolean().optional(),
  maxSkillBytes: positive.optional(),
  maxFiles: positive.optional(),
});

/** A folder of skills, and the label its skills carry (`user`, `project`, …). */
export interface SkillRoot {
  readonly path: string;
  /** `project` or `user` for the defaults; the path itself when not given. */
  readonly source?: string;
}

/** Where skills are looked for, and how much of them is read. */
export interface DiscoverOptions {
  /** The project whose `.claude/skills/` and `.agents/skills/` are read; relative roots resolve against it. `process.cwd()` by default. */
  readonly projectDir?: string;
  /** The home directory whose `.claude/skills/` is read. `os.homedir()` by default; tests pass a temporary one. */
  readonly homeDir?: string;
  /**
   * The skill folders, highest precedence first: a name found in an earlier
   * root shadows the same name in a later one. By default
   * `~/.claude/skills` (user), then `<project>/.claude/skills` and
   * `<project>/.agents/skills` (project): Claude Code's order, personal
   * before project.
   */
  readonly roots?: readonly (string | SkillRoot)[];
  /** Read the user's `~/.claude/skills` when `roots` is not given: `true` by default. */
  readonly userSkills?: boolean;
  /** Largest `SKILL.md` read: 256 KiB. A larger one is `SKILL_TOO_LARGE`. */
  readonly maxSkillBytes?: number;
  /** Bundled files listed per skill at most: 200. */
  readonly maxFiles?: number;
}

/** Discovery options with every default filled in and every path absolute. */
export interface ResolvedDiscoverOptions {
  readonly roots: readonly { readonly path: string; readonly source: string }[];
  readonly maxSkillBytes: number;
  readonly maxFiles: number;
}

/** Throws `INVALID_OPTIONS` naming the field. */
export function invalid(owner: string, error: z.ZodError): never {
  const issue = error.issues[0];
  const where = issue?.path.length ? issue.path.map(String).join('.') : 'options';
  throw new DshError(ErrorCode.INVALID_OPTIONS, `${owner}: ${where}: ${issue?.message ?? 'invalid'}`);
}

/** Validates discovery options and fills in defaults. */
export function resolveDiscoverOptions(options: DiscoverOptions, owner = 'discoverSkills'): ResolvedDiscoverOptions {
  const parsed = discoverOptionsSchema.safeParse(options);
  if (!parsed.success) invalid(owner, parsed.error);
  const o = parsed.data;
  const project = resolve(o.projectDir ?? process.cwd());
  const home = resolve(o.homeDir ?? homedir());
  const roots =
    o.roots === undefined
      ? [
          ...(o.userSkills === false ? [] : [{ path: join(home, '.claude', 'skills'), source: 'user' }]),
          { path: join(project, '.claude', 'skills'), source: 'project' },
          { path: join(project, '.agents', 'skills'), source: 'project' },
        ]
      : o.roots.map((r) => {
          const path = resolve(project, typeof r === 'string' ? r : r.path);
          return { path, source: typeof r === 'string' || r.source === undefined ? path : r.source };
        });
  return { roots, maxSkillBytes: o.maxSkillBytes ?? 256 * 1024, maxFiles: o.maxFiles ?? 200 };
}

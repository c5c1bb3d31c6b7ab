import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { listBundledFiles } from './bundled-files.js';
import { SkillErrorCode, type SkillProblem } from './errors.js';
import { isInside, realOrUndefined } from './internal/paths.js';
import { readBoundedText } from './internal/read-text.js';
import { type DiscoverOptions, type ResolvedDiscoverOptions, resolveDiscoverOptions } from './options.js';
import { parseSkill, type Skill } from './skill.js';

/** What discovery found: the skills by precedence, and every problem, none of them fatal. */
export interface SkillCatalog {
  /** The skills, in root order then name order; a shadowed duplicate is not among them. */
  readonly skills: readonly Skill[];
  readonly problems: readonly SkillProblem[];
  /** The roots looked in, highest precedence first. */
  readonly roots: readonly { readonly path: string; readonly source: string }[];
  /** Each skill's folder (real path): give them to tool-fs as `readOnlyRoots` so bundled files can be read. */
  readonly directories: readonly string[];
  /**
   * The skill called `name` (its folder's name), if any; failing that, the
   * one skill whose label (front matter `name`) is `name`, as Claude Code's
   * `Skill` tool accepts either. A label two skills share names neither.
   */
  get(name: string): Skill | undefined;
}

/**
 * Finds the skills under the configured roots: each folder of a root that
 * holds a `SKILL.md`, named by the folder. Bad skills are reported with a
 * code and left out; a missing root is simply empty. Never throws for what it finds on disk
 * (bad options throw `INVALID_OPTIONS`).
 */
export async function discoverSkills(options: DiscoverOptions = {}): Promise<SkillCatalog> {
  return discoverResolved(resolveDiscoverOptions(options));
}

/** `discoverSkills` with options already resolved. */
export async function discoverResolved(o: ResolvedDiscoverOptions): Promise<SkillCatalog> {
  const problems: SkillProblem[] = [];
  const byName = new Map<string, Skill>();
  for (const root of o.roots) {
    for (const skill of await skillsOfRoot(root, o, problems)) {
      const first = byName.get(skill.name);
      if (first === undefined) {
        byName.set(skill.name, skill);
        continue;
      }
      problems.push({
        code: SkillErrorCode.DUPLICATE_NAME,
        message: `${skill.file}: a skill named "${skill.name}" was already found in ${first.directory} (${first.source}), which takes precedence; this one is not used`,
        path: skill.file,
        skipped: true,
      });
    }
  }
  const skills = [...byName.values()];
  const byLabel = uniqueLabels(skills);
  return Object.freeze({
    skills: Object.freeze(skills),
    problems: Object.freeze(problems),
    roots: o.roots,
    directories: Object.freeze(skills.map((s) => s.directory)),
    get: (name: string) => byName.get(name) ?? byLabel.get(name),
  });
}

function uniqueLabels(skills: readonly Skill[]): ReadonlyMap<string, Skill> {
  const byLabel = new Map<string, Skill | null>();
  for (const skill of skills) {
    if (skill.label === skill.name) continue;
    byLabel.set(skill.label, byLabel.has(skill.label) ? null : skill);
  }
  const unique = new Map<string, Skill>();
  for (const [label, skill] of byLabel) if (skill !== null) unique.set(label, skill);
  return unique;
}

async function skillsOfRoot(
  root: { readonly path: string; readonly source: string },
  o: ResolvedDiscoverOptions,
  problems: SkillProblem[],
): Promise<Skill[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(root.path, { withFileTypes: true });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'ENOENT') {
      problems.push({
        code: SkillErrorCode.ROOT_UNREADABLE,
        message: `${root.path}: the skills folder cannot be read (${code ?? 'unknown error'})`,
        path: root.path,
        skipped: true,
      });
    }
    return [];
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const skills: Skill[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
    const skill = await loadSkill(root, entry.name, o, problems);
    if (skill !== undefined) skills.push(skill);
  }
  return skills;
}

async function loadSkill(
  root: { readonly path: string; readonly source: string },
  folderName: string,
  o: ResolvedDiscoverOptions,
  problems: SkillProblem[],
): Promise<Skill | undefined> {
  const folder = join(root.path, folderName);
  // A linked skill folder (a dotfiles checkout) is followed; what is inside it must stay inside it.
  const directory = await realOrUndefined(folder);
  if (directory === undefined || !(await isDir(directory))) return undefined;
  const file = join(folder, 'SKILL.md');
  const real = await realOrUndefined(file);
  if (real === undefined) return undefined;
  const skip = (code: SkillErrorCode, message: string): undefined => {
    problems.push({ code, message: `${file}: ${message}`, path: file, skipped: true });
    return undefined;
  };
  if (!isInside(directory, real)) return skip(SkillErrorCode.SYMLINK_ESCAPE, `SKILL.md is a link to ${real}, outside the skill's folder`);
  const read = await readBoundedText(real, o.maxSkillBytes);
  if (!read.ok) {
    if (read.reason === 'too-large') {
      return skip(
        SkillErrorCode.TOO_LARGE,
        `SKILL.md has ${read.size} bytes, more than the ${o.maxSkillBytes} allowed; move detail into bundled files`,
      );
    }
    return skip(SkillErrorCode.UNREADABLE, `SKILL.md ${read.message}`);
  }
  const parsed = parseSkill(read.text, { folderName, directory, file, root: root.path, source: root.source }, problems);
  if (parsed === undefined) return undefined;
  const files = await listBundledFiles(directory, o.maxFiles, problems);
  return Object.freeze({ ...parsed, allowedTools: Object.freeze([...parsed.allowedTools]), files: Object.freeze(files) });
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

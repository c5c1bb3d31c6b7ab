import { parseFrontMatter } from '@deepseek-ai/dsh-rules';
import type { AllowedTool } from './allowed-tools.js';
import { compileAllowedTool, splitAllowedTools } from './allowed-tools.js';
import { SkillErrorCode, type SkillProblem } from './errors.js';

/** A discovered skill: its front matter fields, its instructions and its bundled files. */
export interface Skill {
  /** Lowercase letters, digits and single hyphens; equal to the folder's name. */
  readonly name: string;
  /** What the skill does and when to use it: what the model sees before loading it. */
  readonly description: string;
  /** The skill's folder, symlinks resolved: pass it to tool-fs as a read-only root. */
  readonly directory: string;
  /** The `SKILL.md` file. */
  readonly file: string;
  /** The root it was found in, and that root's label (`user`, `project`, …). */
  readonly root: string;
  readonly source: string;
  /** The instructions: the Markdown after the front matter. */
  readonly body: string;
  /** `allowed-tools` entries as written, those understood or not. */
  readonly allowedTools: readonly string[];
  /** The understood entries, which pre-approve calls while the skill is active. */
  readonly allowed: readonly AllowedTool[];
  /** False when the front matter says `disable-model-invocation: true`: the `skill` tool refuses it. */
  readonly modelInvocable: boolean;
  /** Bundled files, relative to `directory` with `/` separators, sorted. */
  readonly files: readonly string[];
}

/** What `parseSkill` needs besides the text. */
export interface SkillLocation {
  readonly folderName: string;
  readonly directory: string;
  readonly file: string;
  readonly root: string;
  readonly source: string;
}

const namePattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const maxNameLength = 64;
/** The Agent Skills specification's limit; longer descriptions are cut in the summary. */
export const maxDescriptionLength = 1024;

const truthy = new Set([true, 'true', 'yes', 'on', '1', 1]);

/**
 * Reads a SKILL.md's text into a skill (without its bundled files), or the
 * problem that keeps it out. Problems that leave the skill usable (a long
 * description, an `allowed-tools` entry it cannot honour) are added to
 * `problems` with `skipped: false`.
 */
export function parseSkill(text: string, at: SkillLocation, problems: SkillProblem[]): Omit<Skill, 'files'> | undefined {
  const skip = (code: SkillErrorCode, message: string) => {
    problems.push({ code, message: `${at.file}: ${message}`, path: at.file, skipped: true });
    return undefined;
  };
  const warn = (code: SkillErrorCode, message: string) =>
    problems.push({ code, message: `${at.file}: ${message}`, path: at.file, skipped: false });
  const fm = parseFrontMatter(text);
  if (!fm.ok) {
    if (fm.kind === 'missing') return skip(SkillErrorCode.NO_FRONT_MATTER, fm.message);
    return skip(fm.kind === 'yaml' ? SkillErrorCode.BAD_YAML : SkillErrorCode.BAD_FRONT_MATTER, fm.message);
  }
  const { data, body } = fm;
  const rawName = data.name ?? at.folderName;
  if (typeof rawName !== 'string') return skip(SkillErrorCode.BAD_FRONT_MATTER, '"name" must be a string');
  if (!namePattern.test(rawName) || rawName.length > maxNameLength) {
    return skip(
      SkillErrorCode.INVALID_NAME,
      `the name "${rawName}" must be 1 to ${maxNameLength} lowercase letters, digits and single hyphens (like "pdf-forms")`,
    );
  }
  if (rawName !== at.folderName) {
    return skip(SkillErrorCode.NAME_MISMATCH, `the name "${rawName}" does not match its folder "${at.folderName}"; rename one of them`);
  }
  const given = data.description;
  if (given !== undefined && given !== null && typeof given !== 'string')
    return skip(SkillErrorCode.BAD_FRONT_MATTER, '"description" must be a string');
  let description = typeof given === 'string' ? given : '';
  if (description.trim() === '') {
    // Claude Code's fallback: the first non-empty line of the instructions.
    const first = body.split('\n').find((line) => line.trim() !== '');
    if (first === undefined) return skip(SkillErrorCode.NO_DESCRIPTION, 'there is no description, and no instructions to take one from');
    description = first.replace(/^#+\s*/, '').trim();
    warn(SkillErrorCode.NO_DESCRIPTION, 'there is no "description"; the first line of the instructions is used instead');
  }
  description = description.replace(/\s+/g, ' ').trim();
  if (description.length > maxDescriptionLength) {
    warn(
      SkillErrorCode.DESCRIPTION_TOO_LONG,
      `the description has ${description.length} characters; the first ${maxDescriptionLength} are used`,
    );
    description = `${description.slice(0, maxDescriptionLength - 1)}…`;
  }
  const entries = splitAllowedTools(data['allowed-tools']);
  const allowed: AllowedTool[] = [];
  if (entries === undefined) {
    warn(SkillErrorCode.BAD_ALLOWED_TOOLS, '"allowed-tools" must be a string or a list of strings; it is ignored');
  } else {
    for (const entry of entries) {
      const compiled = compileAllowedTool(entry);
      if ('unsupported' in compiled) warn(SkillErrorCode.ALLOWED_TOOL_UNSUPPORTED, `${compiled.unsupported}; it pre-approves nothing`);
      else allowed.push(compiled);
    }
  }
  return {
    name: rawName,
    description,
    directory: at.directory,
    file: at.file,
    root: at.root,
    source: at.source,
    body,
    allowedTools: entries ?? [],
    allowed,
    modelInvocable: !truthy.has(data['disable-model-invocation'] as string),
  };
}

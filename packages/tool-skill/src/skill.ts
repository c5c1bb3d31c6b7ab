import { parseFrontMatter } from '@deepseek-ai/dsh-rules';
import type { AllowedTool } from './allowed-tools.js';
import { compileAllowedTool, splitAllowedTools } from './allowed-tools.js';
import { SkillErrorCode, type SkillProblem } from './errors.js';
import { firstParagraph } from './internal/first-paragraph.js';

/** A discovered skill: its front matter fields, its instructions and its bundled files. */
export interface Skill {
  /**
   * The skill's identity: its folder's name, as in Claude Code. The summary
   * lists it, the `skill` tool takes it, and precedence between roots
   * compares it. Never the front matter's `name` (that is {@link Skill.label}).
   */
  readonly name: string;
  /**
   * What to show a person: the front matter's `name` (a display label in
   * Claude Code, such as `Command Development`), or the folder's name when
   * there is none. The `skill` tool also accepts it, when no other skill's
   * name or label is the same.
   */
  readonly label: string;
  /** What the skill does and when to use it: what the model sees before loading it. */
  readonly description: string;
  /** The skill's folder, symlinks resolved: pass it to tool-fs as a read-only root. */
  readonly directory: string;
  /** The `SKILL.md` file. */
  readonly file: string;
  /** The root it was found in, and that root's label (`user`, `project`, …). */
  readonly root: string;
  readonly source: string;
  /** The instructions: the Markdown after the front matter (the whole file when it has none). */
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

/** What a folder's name must be to name a skill: it goes verbatim into the system prompt and the tool's argument. */
export const skillNamePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
// The Agent Skills specification's form of a name; another `name` still loads, with a warning.
const specNamePattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const maxNameLength = 64;
/** The Agent Skills specification's limit; longer descriptions are cut in the summary. */
export const maxDescriptionLength = 1024;

const truthy = new Set([true, 'true', 'yes', 'on', '1', 1]);

/**
 * Reads a SKILL.md's text into a skill (without its bundled files), or the
 * problem that keeps it out. As in Claude Code every field is optional: the
 * folder names the skill, the front matter's `name` is only its label, and
 * a missing description is the instructions' first paragraph. Problems that
 * leave the skill usable (no front matter, a `name` that is not the
 * folder's, YAML read only after quoting values, a long description, an
 * `allowed-tools` entry it cannot honour) are added to `problems` with
 * `skipped: false`.
 */
export function parseSkill(text: string, at: SkillLocation, problems: SkillProblem[]): Omit<Skill, 'files'> | undefined {
  const skip = (code: SkillErrorCode, message: string) => {
    problems.push({ code, message: `${at.file}: ${message}`, path: at.file, skipped: true });
    return undefined;
  };
  // Warnings are kept until the skill is known to load: a skipped skill reports only why.
  const warnings: SkillProblem[] = [];
  const warn = (code: SkillErrorCode, message: string) =>
    warnings.push({ code, message: `${at.file}: ${message}`, path: at.file, skipped: false });
  const name = at.folderName;
  if (!skillNamePattern.test(name)) {
    return skip(
      SkillErrorCode.INVALID_NAME,
      `the folder name "${name}" cannot name a skill: it must be 1 to ${maxNameLength} letters, digits, "-", "_" or ".", starting with a letter or digit (like "pdf-forms")`,
    );
  }
  const read = readFrontMatter(text, warn);
  if ('skip' in read) return skip(read.skip, read.message);
  const { data, body } = read;
  const given = data.description;
  if (given !== undefined && given !== null && typeof given !== 'string')
    return skip(SkillErrorCode.BAD_FRONT_MATTER, '"description" must be a string');
  let description = typeof given === 'string' ? given : '';
  if (description.trim() === '') {
    const first = firstParagraph(body);
    if (first === undefined) return skip(SkillErrorCode.NO_DESCRIPTION, 'there is no description, and no instructions to take one from');
    description = first;
    if (read.bare) {
      warn(
        SkillErrorCode.NO_FRONT_MATTER,
        'SKILL.md has no front matter; the skill is named after its folder and described by the first paragraph of its instructions',
      );
    } else warn(SkillErrorCode.NO_DESCRIPTION, 'there is no "description"; the first paragraph of the instructions is used instead');
  }
  const label = labelOf(data.name, name, warn);
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
  problems.push(...warnings);
  return {
    name,
    label,
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

type Warn = (code: SkillErrorCode, message: string) => void;

/**
 * The front matter and instructions, or why the skill is left out. A file
 * without front matter is all instructions (`bare`: no field is given); YAML
 * that only reads with its values quoted (Claude Code's retry) loads with a
 * warning.
 */
function readFrontMatter(
  text: string,
  warn: Warn,
):
  | { readonly data: Readonly<Record<string, unknown>>; readonly body: string; readonly bare: boolean }
  | { readonly skip: SkillErrorCode; readonly message: string } {
  const fm = parseFrontMatter(text);
  if (fm.ok) {
    if (fm.repaired !== undefined) {
      const keys = fm.repaired.keys.map((k) => `"${k}"`).join(', ');
      warn(
        SkillErrorCode.BAD_YAML,
        `the front matter is not valid YAML (${fm.repaired.error}); it is read as Claude Code reads it, with the value of ${keys} taken as written: put such values in quotes`,
      );
    }
    return { data: fm.data, body: fm.body, bare: false };
  }
  // Every field is optional, the front matter too.
  if (fm.kind === 'missing') {
    return { data: {}, body: text.startsWith('\uFEFF') ? text.slice(1) : text, bare: true };
  }
  return { skip: fm.kind === 'yaml' ? SkillErrorCode.BAD_YAML : SkillErrorCode.BAD_FRONT_MATTER, message: fm.message };
}

/** The label from the front matter's `name`, warning when it is not the folder's name or not the specification's form. */
function labelOf(given: unknown, name: string, warn: Warn): string {
  if (given === undefined || given === null) return name;
  if (typeof given !== 'string') {
    warn(SkillErrorCode.BAD_FRONT_MATTER, `"name" must be a string; it is ignored, and the skill is "${name}" after its folder`);
    return name;
  }
  const label = given.replace(/\s+/g, ' ').trim();
  if (label === '' || label === name) return name;
  if (!specNamePattern.test(label) || label.length > maxNameLength) {
    warn(
      SkillErrorCode.INVALID_NAME,
      `the name "${label}" is not 1 to ${maxNameLength} lowercase letters, digits and single hyphens; as in Claude Code it is only the skill's label, and the skill is "${name}" after its folder`,
    );
  } else {
    warn(
      SkillErrorCode.NAME_MISMATCH,
      `the name "${label}" differs from the folder's name; as in Claude Code the folder decides, so the skill is "${name}" and "${label}" is its label`,
    );
  }
  return label;
}

import { parseFrontMatter, splitToolList } from '@deepseek-ai/dsh-rules';
import { SubagentErrorCode, type SubagentProblem } from './errors.js';

/** A subagent type: who it is, what it may call, which model runs it, and its system prompt. */
export interface SubagentDefinition {
  /** The `subagent_type` the model names it by. */
  readonly name: string;
  /** When to use it: shown to the model in the `task` tool's description. */
  readonly description: string;
  /**
   * The tools it may call, as dsh names (`read`) or Claude Code names (`Read`);
   * absent: every tool its caller may call. It can only narrow that set.
   */
  readonly tools?: readonly string[];
  /** Tools taken away from what it would otherwise get (Claude Code's `disallowedTools`). */
  readonly disallowedTools?: readonly string[];
  /** A key of the plugin's `models`; absent or `inherit`: the plugin's `model`. */
  readonly model?: string;
  /** The system prompt: the Markdown after the front matter. */
  readonly prompt: string;
  /** Where it came from: `code`, `project`, `user` or `built-in`. */
  readonly source: string;
  /** The file it was read from, for one read from disk. */
  readonly file?: string;
}

const namePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const toolEntry = /^[A-Za-z0-9_*.-]+$/;

/** Where a definition is being read from, for its problems. */
export interface DefinitionOrigin {
  readonly path: string;
  readonly source: string;
  readonly file?: string;
}

/**
 * Reads one `.claude/agents/*.md` file: front matter `name`, `description`,
 * `tools`, `disallowedTools`, `model`, then the system prompt. Other fields
 * (`color`, `permissionMode`, `hooks`, …) are ignored. As in Claude Code, a
 * `\n` written in the description is a line break, and front matter that is
 * only valid YAML once its one-line values are quoted (a description with
 * `: ` inside) is read that way, with a `SUBAGENT_BAD_YAML` warning. A
 * definition that cannot be read safely is left out with a problem;
 * `undefined` then.
 */
export function parseDefinitionFile(text: string, origin: DefinitionOrigin, problems: SubagentProblem[]): SubagentDefinition | undefined {
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) {
    const code =
      parsed.kind === 'missing'
        ? SubagentErrorCode.NO_FRONT_MATTER
        : parsed.kind === 'yaml'
          ? SubagentErrorCode.BAD_YAML
          : SubagentErrorCode.BAD_FRONT_MATTER;
    problems.push({ code, message: `${origin.path}: ${parsed.message}`, path: origin.path, skipped: true });
    return undefined;
  }
  const { description } = parsed.data;
  const data = {
    ...parsed.data,
    // Claude Code's reading: authors write `\n` in a one-line description to mean a line break.
    ...(typeof description === 'string' ? { description: description.replace(/\\n/g, '\n') } : {}),
    prompt: parsed.body.trim(),
  };
  // The repair is worth a warning only for a definition that loads; a skipped one reports only why.
  const found: SubagentProblem[] = [];
  const definition = checkDefinition(data, origin, found);
  if (definition !== undefined && parsed.repaired !== undefined) {
    const keys = parsed.repaired.keys.map((k) => `"${k}"`).join(', ');
    problems.push({
      code: SubagentErrorCode.BAD_YAML,
      message: `${origin.path}: the front matter is not valid YAML (${parsed.repaired.error}); it is read as Claude Code reads it, with the value of ${keys} taken as written: put such values in quotes`,
      path: origin.path,
      skipped: false,
    });
  }
  problems.push(...found);
  return definition;
}

/**
 * Checks a definition's fields (from a file's front matter, or given in
 * code). Anything that could widen what the subagent may do when read
 * loosely (a `tools` value of the wrong type) leaves the definition out.
 */
export function checkDefinition(
  data: Readonly<Record<string, unknown>>,
  origin: DefinitionOrigin,
  problems: SubagentProblem[],
): SubagentDefinition | undefined {
  const skip = (code: SubagentErrorCode, why: string): undefined => {
    problems.push({ code, message: `${origin.path}: ${why}`, path: origin.path, skipped: true });
    return undefined;
  };
  const { name, description, model, prompt } = data;
  if (typeof name !== 'string' || !namePattern.test(name)) {
    return skip(
      SubagentErrorCode.INVALID_NAME,
      `"name" must be 1-64 letters, digits, "-", "_" or "." (got ${JSON.stringify(name ?? null)})`,
    );
  }
  if (typeof description !== 'string' || description.trim() === '') {
    return skip(SubagentErrorCode.NO_DESCRIPTION, `"description" must be a non-empty string: the model chooses a subagent by it`);
  }
  if (model !== undefined && typeof model !== 'string') return skip(SubagentErrorCode.BAD_FRONT_MATTER, '"model" must be a string');
  if (prompt !== undefined && typeof prompt !== 'string') return skip(SubagentErrorCode.BAD_FRONT_MATTER, '"prompt" must be a string');
  const tools = toolList(data.tools, 'tools', origin, problems);
  if (tools === false) return undefined;
  const disallowed = toolList(data.disallowedTools, 'disallowedTools', origin, problems);
  if (disallowed === false) return undefined;
  return Object.freeze({
    name,
    description: description.trim(),
    prompt: typeof prompt === 'string' ? prompt : '',
    source: origin.source,
    ...(tools === undefined ? {} : { tools }),
    ...(disallowed === undefined ? {} : { disallowedTools: disallowed }),
    ...(model === undefined || model === '' ? {} : { model }),
    ...(origin.file === undefined ? {} : { file: origin.file }),
  });
}

/**
 * A tool list: a comma- or space-separated string or a YAML list of names.
 * `undefined` when absent; `false` (after a problem) when unreadable. An
 * entry with a specifier (`Bash(git *)`) is not understood here and is left
 * out, so the list only gets narrower.
 */
function toolList(
  value: unknown,
  field: string,
  origin: DefinitionOrigin,
  problems: SubagentProblem[],
): readonly string[] | undefined | false {
  if (value === undefined || value === null) return undefined;
  let raw: string[];
  const split = splitToolList(value);
  if (split !== undefined) raw = split;
  else {
    problems.push({
      code: SubagentErrorCode.BAD_TOOLS,
      message: `${origin.path}: "${field}" must be a string of tool names or a list of them; the definition is left out rather than read loosely`,
      path: origin.path,
      skipped: true,
    });
    return false;
  }
  const kept: string[] = [];
  for (const entry of raw) {
    if (toolEntry.test(entry)) kept.push(entry);
    else if (field === 'tools') {
      problems.push({
        code: SubagentErrorCode.TOOL_SPECIFIER_IGNORED,
        message: `${origin.path}: "${entry}" in "tools" is not a plain tool name; it is left out, so the subagent cannot call that tool`,
        path: origin.path,
        skipped: false,
      });
    } else {
      // A disallowed entry that cannot be honoured exactly takes the whole tool away: narrower, never wider.
      kept.push(entry.replace(/\(.*$/s, ''));
    }
  }
  return Object.freeze(kept);
}

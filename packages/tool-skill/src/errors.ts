import { ToolError } from '@deepseek-ai/dsh-core';

/**
 * Stable codes of tool-skill: the `code` of a {@link SkillProblem} found
 * while discovering skills, or the `error.code` of a failed `skill` call.
 * Each is listed with its meaning in the package README.
 */
export const SkillErrorCode = {
  // A skill that is skipped.
  NO_FRONT_MATTER: 'SKILL_NO_FRONT_MATTER',
  BAD_YAML: 'SKILL_BAD_YAML',
  BAD_FRONT_MATTER: 'SKILL_BAD_FRONT_MATTER',
  INVALID_NAME: 'SKILL_INVALID_NAME',
  NAME_MISMATCH: 'SKILL_NAME_MISMATCH',
  NO_DESCRIPTION: 'SKILL_NO_DESCRIPTION',
  TOO_LARGE: 'SKILL_TOO_LARGE',
  SYMLINK_ESCAPE: 'SKILL_SYMLINK_ESCAPE',
  UNREADABLE: 'SKILL_UNREADABLE',
  DUPLICATE_NAME: 'SKILL_DUPLICATE_NAME',
  ROOT_UNREADABLE: 'SKILL_ROOT_UNREADABLE',
  // A skill that loads, with a part left out.
  DESCRIPTION_TOO_LONG: 'SKILL_DESCRIPTION_TOO_LONG',
  BAD_ALLOWED_TOOLS: 'SKILL_BAD_ALLOWED_TOOLS',
  ALLOWED_TOOL_UNSUPPORTED: 'SKILL_ALLOWED_TOOL_UNSUPPORTED',
  FILES_TRUNCATED: 'SKILL_FILES_TRUNCATED',
  // The `skill` tool.
  NOT_FOUND: 'SKILL_NOT_FOUND',
  NOT_MODEL_INVOCABLE: 'SKILL_NOT_MODEL_INVOCABLE',
} as const;

/** One of tool-skill's stable codes. */
export type SkillErrorCode = (typeof SkillErrorCode)[keyof typeof SkillErrorCode];

/** Something wrong with a skill or a root, found while discovering skills. Never thrown. */
export interface SkillProblem {
  readonly code: SkillErrorCode;
  readonly message: string;
  /** The file or folder concerned. */
  readonly path: string;
  /** True when the skill was left out; false when it loads with this part ignored. */
  readonly skipped: boolean;
}

/** Builds the `ToolError` the `skill` tool throws. */
export function skillError(code: SkillErrorCode, message: string, data?: Readonly<Record<string, unknown>>): ToolError {
  return new ToolError(code, message, data === undefined ? undefined : { data });
}

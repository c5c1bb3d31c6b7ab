import { ToolError } from '@deepseek-ai/dsh-core';

/**
 * Stable codes of tool-subagent: the `code` of a {@link SubagentProblem}
 * found while loading definitions, the `error.code` of a failed `task`
 * call, or the code a refused nested call's reason starts with. Each is
 * listed with its meaning in the package README.
 */
export const SubagentErrorCode = {
  // A definition file that is left out.
  UNREADABLE: 'SUBAGENT_UNREADABLE',
  TOO_LARGE: 'SUBAGENT_TOO_LARGE',
  NO_FRONT_MATTER: 'SUBAGENT_NO_FRONT_MATTER',
  BAD_YAML: 'SUBAGENT_BAD_YAML',
  BAD_FRONT_MATTER: 'SUBAGENT_BAD_FRONT_MATTER',
  INVALID_NAME: 'SUBAGENT_INVALID_NAME',
  NO_DESCRIPTION: 'SUBAGENT_NO_DESCRIPTION',
  BAD_TOOLS: 'SUBAGENT_BAD_TOOLS',
  DUPLICATE_NAME: 'SUBAGENT_DUPLICATE_NAME',
  ROOT_UNREADABLE: 'SUBAGENT_ROOT_UNREADABLE',
  // A definition that loads with a part left out.
  TOOL_SPECIFIER_IGNORED: 'SUBAGENT_TOOL_SPECIFIER_IGNORED',
  MODEL_UNKNOWN: 'SUBAGENT_MODEL_UNKNOWN',
  // The `task` tool.
  UNKNOWN_TYPE: 'SUBAGENT_UNKNOWN_TYPE',
  DEPTH_EXCEEDED: 'SUBAGENT_DEPTH_EXCEEDED',
  MAX_TURNS: 'SUBAGENT_MAX_TURNS',
  CALL_LIMIT: 'SUBAGENT_CALL_LIMIT',
  MODEL_FAILED: 'SUBAGENT_MODEL_FAILED',
  INCOMPLETE: 'SUBAGENT_INCOMPLETE',
  // A nested call the subagent's guard refused (the reason starts with the code).
  TOOL_NOT_ALLOWED: 'SUBAGENT_TOOL_NOT_ALLOWED',
} as const;

/** One of tool-subagent's stable codes. */
export type SubagentErrorCode = (typeof SubagentErrorCode)[keyof typeof SubagentErrorCode];

/** Something wrong with a definition file or folder, found while loading definitions. Never thrown. */
export interface SubagentProblem {
  readonly code: SubagentErrorCode;
  readonly message: string;
  /** The file or folder concerned (`options.agents[2]` for a definition given in code). */
  readonly path: string;
  /** True when the definition was left out; false when it loads with this part ignored. */
  readonly skipped: boolean;
}

/** Builds the `ToolError` the `task` tool throws. */
export function subagentError(code: SubagentErrorCode, message: string, data?: Readonly<Record<string, unknown>>): ToolError {
  return new ToolError(code, message, data === undefined ? undefined : { data });
}

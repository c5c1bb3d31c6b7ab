/**
 * Subagents for dsh: the `task` tool runs a nested agent loop on the same
 * host, so every call a subagent makes passes the parent's hooks, rules,
 * guards, approvals, timeouts and session log, with its tool list only ever
 * narrowed. Definitions come from Claude Code's `.claude/agents/*.md` files.
 *
 * @packageDocumentation
 */
export type { SubagentCatalog } from './catalog.js';
export type { SubagentDefinition } from './definition.js';
export { SubagentErrorCode, type SubagentProblem } from './errors.js';
export {
  type SubagentEndEventData,
  type SubagentIdentity,
  type SubagentStartEventData,
  subagentEndEvent,
  subagentStartEvent,
} from './events.js';
export { type ExternalNames, taskExternal } from './external.js';
export { type SubagentDefinitionInput, type ToolSubagentOptions, toolSubagentOptionsSchema } from './options.js';
export { generalPurposeType, type SubagentPlugin, subagentTapStage, toolSubagent, toolSubagentPluginName } from './plugin.js';
export { taskInput } from './task-tool.js';
export { version as toolSubagentVersion } from './version.js';

/**
 * Claude Code's permission rules, modes and remembered approvals for dsh:
 * `allow`, `deny` and `ask` rules from `.claude/settings*.json` and code,
 * decided on every call in `tools/pre-execute`, with approvals that can be
 * remembered for the session or the project and reviewed and revoked.
 *
 * @packageDocumentation
 */
// The rule syntax, the shell scanner and path patterns live in @deepseek-ai/dsh-rules; they are re-exported here as before.
export {
  type AnchorOptions,
  type Anchors,
  type CommandVia,
  type Coverage,
  categoryOf,
  coverage,
  defaultAnchors,
  formatRule,
  kindOf,
  type PermissionRule,
  RUNTIME_ARGUMENT,
  type RuleCheck,
  type RuleList,
  type RuleMatch,
  type RuleOrigin,
  RuleSet,
  type RuleSubject,
  type ShellCommand,
  type SourcedRule,
  type SpecifierKind,
  type SplitCommand,
  type SubjectOptions,
  splitCommand,
  subjectOf,
  type ToolCategory,
} from '@deepseek-ai/dsh-rules';
export { type DecidedBy, type DecideInput, decide, type PermissionDecision, type PermissionMode, permissionModes } from './decide.js';
export { PermissionsError, PermissionsErrorCode } from './errors.js';
export type { DecisionEventData, GrantEventData } from './events.js';
export { type Grant, type GrantMeta, type GrantScope, GrantStore, type GrantStoreOptions } from './grants.js';
export { type PermissionsOptions, parsePermissionsOptions, permissionsOptionsSchema } from './options.js';
export { type GrantsApi, type PermissionsPlugin, permissions } from './plugin.js';
export {
  type GrantSuggestion,
  type PermissionPrompt,
  type PermissionPromptReply,
  type PermissionPromptRequest,
  type RememberReply,
  suggestGrants,
} from './remember.js';
export { checkRules, matchRule, parseRule } from './rules.js';
export type { SandboxSettings } from './sandbox-settings.js';
export {
  defaultSettingsFiles,
  displayPath,
  type LoadedSettings,
  loadSettings,
  type PermissionProblem,
  type PermissionRules,
} from './settings.js';

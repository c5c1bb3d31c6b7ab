/**
 * Claude Code's permission rules, modes and remembered approvals for dsh:
 * `allow`, `deny` and `ask` rules from `.claude/settings*.json` and code,
 * decided on every call in `tools/pre-execute`, with approvals that can be
 * remembered for the session or the project and reviewed and revoked.
 *
 * @packageDocumentation
 */
export { type DecidedBy, type DecideInput, decide, type PermissionDecision, type PermissionMode, permissionModes } from './decide.js';
export { PermissionsError, PermissionsErrorCode } from './errors.js';
export type { DecisionEventData, GrantEventData } from './events.js';
export { type Grant, type GrantMeta, type GrantScope, GrantStore, type GrantStoreOptions } from './grants.js';
export { checkRules, matchRule, type RuleCheck } from './match.js';
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
export { formatRule, kindOf, type PermissionRule, parseRule, type RuleList, type SpecifierKind } from './rule.js';
export { type Coverage, coverage, type RuleMatch, type RuleOrigin, RuleSet, type SourcedRule } from './rule-set.js';
export {
  defaultSettingsFiles,
  displayPath,
  type LoadedSettings,
  loadSettings,
  type PermissionProblem,
  type PermissionRules,
} from './settings.js';
export { type CommandVia, RUNTIME_ARGUMENT, type ShellCommand, type SplitCommand, splitCommand } from './shell-split.js';
export { type AnchorOptions, type Anchors, categoryOf, defaultAnchors, type RuleSubject, subjectOf, type ToolCategory } from './subject.js';

/**
 * Runs the command hooks people already wrote for Claude Code, Gemini CLI
 * and GitHub Copilot CLI, unchanged, on the dsh pipeline.
 *
 * @packageDocumentation
 */
export { HookErrorCode, HooksBridgeError } from './errors.js';
export type { HookConfig, HookConfigProblem, HookDialect, HookPhase, HookSpec, PostOutcomeFilter } from './hook-spec.js';
export type { IfRule, IfRuleContext, IfRuleVerdict } from './if-rule.js';
export { type LoadHookConfigOptions, loadHookConfig } from './load-config.js';
export type { ToolMatcher } from './matcher.js';
export { type HookRunRecord, type HooksBridgeOptions, hooksBridgeOptionsSchema } from './options.js';
export { hooksBridge, hooksBridgeName } from './plugin.js';

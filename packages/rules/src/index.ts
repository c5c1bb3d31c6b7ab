/**
 * Claude Code's permission-rule syntax for dsh, as one library: parsing
 * rules (`Bash(git *)`, `Edit(./src/**)`, `mcp__github__*`), mapping tool
 * names to what rules say about them, the static shell scanner that splits
 * a command line into every command it runs, and gitignore-style path
 * patterns. Shared by `@deepseek-ai/dsh-permissions` (allow, deny and ask
 * rules) and `@deepseek-ai/dsh-hooks-bridge` (a hook's `if` condition), so a
 * rule means the same thing in both. Also the YAML front matter of Claude
 * Code's Markdown files (skills, agent definitions), read one way by
 * tool-skill and tool-subagent.
 *
 * @packageDocumentation
 */
export { type ClaudeDifference, type ClaudeDifferenceCode, claudeDifferences, skippedByClaude } from './claude-differences.js';
export { RulesError, RulesErrorCode } from './errors.js';
export { type FrontMatter, type FrontMatterRepair, parseFrontMatter } from './front-matter.js';
export { realOrSelf } from './internal/patterns.js';
export { type JsonSyntaxProblem, type JsonTextResult, jsonSyntaxProblem, parseJsonText } from './json-text.js';
export { checkRules, matchRule, type RuleCheck, RuleMatcher, type RuleTest, testRule } from './match.js';
export { formatRule, kindOf, type PermissionRule, parseRule, type RuleList, type SpecifierKind } from './rule.js';
export { type Coverage, coverage, namesTool, type RuleMatch, type RuleOrigin, RuleSet, type SourcedRule } from './rule-set.js';
export { type CommandVia, RUNTIME_ARGUMENT, type ShellCommand, type SplitCommand, splitCommand } from './shell-split.js';
export {
  type AnchorOptions,
  type Anchors,
  categoryOf,
  defaultAnchors,
  type RuleSubject,
  type SubjectOptions,
  subjectOf,
  type ToolCategory,
} from './subject.js';
export { splitToolList } from './tool-list.js';

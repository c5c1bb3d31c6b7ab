/**
 * Agent Skills for dsh, as Claude Code, Codex and Gemini CLI load them: a
 * folder with a `SKILL.md` (YAML front matter, then instructions) and
 * bundled files. Skills are discovered from configured roots, summarised
 * for the system prompt (`skillsSummary`), loaded on demand by the `skill`
 * tool, and their `allowed-tools` pre-approve calls while they are active.
 *
 * @packageDocumentation
 */
export { ActiveSkills } from './active-skills.js';
export { type AllowedTool, allowedToolCovers, compileAllowedTool, splitAllowedTools } from './allowed-tools.js';
export { listBundledFiles } from './bundled-files.js';
export { discoverSkills, type SkillCatalog } from './discovery.js';
export { SkillErrorCode, type SkillProblem } from './errors.js';
export { type ExternalNames, skillExternal } from './external.js';
export { type DiscoverOptions, discoverOptionsSchema, type SkillRoot } from './options.js';
export { type SkillPlugin, skillCatalog, skillsSummary, type ToolSkillOptions, toolSkill, toolSkillPluginName } from './plugin.js';
export { maxDescriptionLength, parseSkill, type Skill, type SkillLocation, skillNamePattern } from './skill.js';
export { type SkillOutput, skillLoadedEvent } from './skill-tool.js';
export { summarizeSkills } from './summary.js';
export { version } from './version.js';

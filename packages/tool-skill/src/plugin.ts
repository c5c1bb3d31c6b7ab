import { DshError, definePlugin, ErrorCode, type Host, type Plugin, z } from '@deepseek-ai/dsh-core';
import { ActiveSkills } from './active-skills.js';
import { discoverResolved, type SkillCatalog } from './discovery.js';
import { type DiscoverOptions, discoverOptionsSchema, invalid, resolveDiscoverOptions } from './options.js';
import { skillLoadedEvent, skillOfOutput, skillTool } from './skill-tool.js';
import { summarizeSkills } from './summary.js';
import { version } from './version.js';

/** The plugin's name, as `host.plugins()` lists it. */
export const toolSkillPluginName = 'tool-skill';

/** Options of `toolSkill`: where to find skills, or a catalog already found, and how to honour them. */
export interface ToolSkillOptions extends DiscoverOptions {
  /** A catalog from `discoverSkills` (the one whose `directories` went to tool-fs): used as is, not discovered again. */
  readonly catalog?: SkillCatalog;
  /** The tool's name: `skill` by default. */
  readonly name?: string;
  /** Honour `allowed-tools` with a pre-execute tap: `true` by default. */
  readonly allowedTools?: boolean;
  /** The tap's stage: 50, before the permissions plugin (100), which then still applies deny and ask rules. */
  readonly stage?: number;
}

const pluginOptionsSchema = discoverOptionsSchema.extend({
  catalog: z.custom<SkillCatalog>((v) => typeof v === 'object' && v !== null && typeof (v as SkillCatalog).get === 'function').optional(),
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
  allowedTools: z.boolean().optional(),
  stage: z.number().finite().optional(),
});

/** The `toolSkill()` plugin, with its catalog and the skills active in this turn. */
export interface SkillPlugin extends Plugin {
  /** The skills found (empty before the host registers the plugin, unless a catalog was given). */
  catalog(): SkillCatalog;
  /** Discovers the skills again (after an edit); active skills stay active until `endTurn`. */
  reload(): Promise<SkillCatalog>;
  /** Names of the skills loaded since the turn began, whose `allowed-tools` apply. */
  active(): readonly string[];
  /** Ends every skill's `allowed-tools` grant: call it when the user sends a new message. */
  endTurn(): void;
  /** `skillsSummary` for this plugin's skills. */
  summary(): string;
}

interface Runtime {
  readonly toolName: string;
  catalog(): SkillCatalog;
}

// Keyed by the registered body: the registry copies a definition but keeps its functions.
const runtimes = new WeakMap<object, Runtime>();

const emptyCatalog: SkillCatalog = Object.freeze({
  skills: [],
  problems: [],
  roots: [],
  directories: [],
  get: () => undefined,
});

/**
 * Agent Skills as a plugin: registers the `skill` tool, which hands the
 * model a skill's instructions and bundled file list and logs a
 * `skill/loaded` event, and a `tools/pre-execute` tap that honours the
 * loaded skills' `allowed-tools` until `endTurn()`. Skills are discovered
 * when the host registers the plugin (unless a `catalog` is given); each
 * problem found is recorded as a host diagnostic with its code. Options are
 * checked here (`INVALID_OPTIONS` naming the field). One instance per host.
 */
export function toolSkill(options: ToolSkillOptions = {}): SkillPlugin {
  const parsed = pluginOptionsSchema.safeParse(options);
  if (!parsed.success) invalid('toolSkill', parsed.error);
  const { catalog: given, name = 'skill', allowedTools = true, stage = 50, ...discover } = options;
  const resolved = resolveDiscoverOptions(discover, 'toolSkill');
  const active = new ActiveSkills();
  let catalog: SkillCatalog = given ?? emptyCatalog;
  let host: Host | undefined;

  const report = (found: SkillCatalog): void => {
    for (const problem of found.problems) host?.diagnostics.record(problem.code, toolSkillPluginName, problem.message);
  };
  const plugin = definePlugin({
    name: name === 'skill' ? toolSkillPluginName : `${toolSkillPluginName}-${name}`,
    version,
    async register(h) {
      host = h;
      if (given === undefined) catalog = await discoverResolved(resolved);
      report(catalog);
      try {
        h.events.define('skill/loaded', skillLoadedEvent);
      } catch (error) {
        // Another tool-skill instance on this host defined it already; the schema is the same.
        if (!(DshError.isInstance(error) && error.code === ErrorCode.DUPLICATE_EVENT_TYPE)) throw error;
      }
      const tool = skillTool({ name, catalog: () => catalog });
      runtimes.set(tool.execute, { toolName: name, catalog: () => catalog });
      h.tools.register(tool);
      h.hooks.result.tap(`${plugin.name}/activate`, (outcome, info) => {
        if (info.tool?.execute !== tool.execute || outcome.status !== 'ok') return;
        // The skill whose instructions the call returned; by name only when a post-execute tap replaced them.
        const skill = skillOfOutput(outcome.output) ?? catalog.get(String(info.args.name));
        if (skill !== undefined) active.activate(skill);
      });
      if (allowedTools) h.hooks.preExecute.tap({ name: `${plugin.name}/allowed-tools`, stage }, active.tap);
    },
  });
  return Object.freeze({
    ...plugin,
    catalog: () => catalog,
    async reload() {
      catalog = await discoverResolved(resolved);
      report(catalog);
      return catalog;
    },
    active: () => active.names(),
    endTurn: () => active.clear(),
    summary: () => summarizeSkills(catalog.skills, name),
  });
}

/**
 * The system-prompt summary of the skills of the tool-skill plugin
 * registered on `host` (tool `toolName`, `skill` by default): each skill's
 * name and description. Empty when there is no such plugin or no skill.
 */
export function skillsSummary(host: Pick<Host, 'tools'>, toolName = 'skill'): string {
  const rt = skillRuntime(host, toolName);
  return rt === undefined ? '' : summarizeSkills(rt.catalog().skills, rt.toolName);
}

/** The catalog of the tool-skill plugin registered on `host`, or `undefined` when there is none. */
export function skillCatalog(host: Pick<Host, 'tools'>, toolName = 'skill'): SkillCatalog | undefined {
  return skillRuntime(host, toolName)?.catalog();
}

function skillRuntime(host: Pick<Host, 'tools'>, toolName: string): Runtime | undefined {
  const tool = host.tools.get(toolName);
  return tool === undefined ? undefined : runtimes.get(tool.execute);
}

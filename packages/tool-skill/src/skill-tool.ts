import { type Card, defineTool, type Outcome, z } from '@deepseek-ai/dsh-core';
import type { SkillCatalog } from './discovery.js';
import { SkillErrorCode, skillError } from './errors.js';
import { skillExternal } from './external.js';
import type { Skill } from './skill.js';

/** What the `skill` tool returns: the instructions and where the bundled files are. */
export interface SkillOutput {
  readonly name: string;
  /** The skill's folder: bundled files are `<directory>/<file>`, read with the file tools. */
  readonly directory: string;
  /** The Markdown after the front matter. */
  readonly instructions: string;
  /** Bundled files, relative to `directory`. */
  readonly files: readonly string[];
  /** Tools the skill pre-approves until the user's next message, as written. */
  readonly allowedTools: readonly string[];
}

/** The zod schema of the `skill/loaded` event. */
export const skillLoadedEvent = z.object({
  name: z.string(),
  directory: z.string(),
  source: z.string(),
  allowedTools: z.array(z.string()),
  files: z.number().int().nonnegative(),
});

declare module '@deepseek-ai/dsh-core' {
  interface EventDataMap {
    /** A skill's instructions were handed to the model by the `skill` tool. */
    'skill/loaded': z.infer<typeof skillLoadedEvent>;
  }
}

/** What the tool reads: the current catalog (replaced on reload). */
export interface SkillToolRuntime {
  readonly name: string;
  catalog(): SkillCatalog;
}

// A skill never changes once found (a reload makes new ones): its event and output are built once, frozen.
const made = new WeakMap<Skill, { readonly event: z.infer<typeof skillLoadedEvent>; readonly output: SkillOutput }>();
// Each made output back to its skill: what a call returned names the skill it loaded without a second lookup.
const loadedBy = new WeakMap<object, Skill>();

/** The skill whose output `output` is (as the `skill` tool returned it), if it is one. */
export function skillOfOutput(output: unknown): Skill | undefined {
  return typeof output === 'object' && output !== null ? loadedBy.get(output) : undefined;
}

function madeFor(skill: Skill): { readonly event: z.infer<typeof skillLoadedEvent>; readonly output: SkillOutput } {
  let entry = made.get(skill);
  if (entry === undefined) {
    const allowedTools = Object.freeze([...skill.allowedTools]) as string[];
    entry = Object.freeze({
      event: Object.freeze({ name: skill.name, directory: skill.directory, source: skill.source, allowedTools, files: skill.files.length }),
      output: Object.freeze({ name: skill.name, directory: skill.directory, instructions: skill.body, files: skill.files, allowedTools }),
    });
    made.set(skill, entry);
    loadedBy.set(entry.output, skill);
  }
  return entry;
}

// The output of a skill is one frozen object (see `madeFor`), so its card is made once too.
const cards = new WeakMap<object, Card>();

const shown = (value: unknown): string => (typeof value === 'string' ? value.slice(0, 120) : (JSON.stringify(value)?.slice(0, 120) ?? ''));

/** The `skill` tool. */
export function skillTool(rt: SkillToolRuntime) {
  return defineTool({
    name: rt.name,
    description:
      'Load a skill by name: returns its instructions and the list of files bundled with it. Call it when a task matches one of the available skills, before you start, then follow the instructions. Bundled files are not loaded: read the ones the instructions point to, by absolute path under the returned directory.',
    input: z.object({ name: z.string().min(1).max(64).describe('The skill name, as listed among the available skills.') }),
    parallel: true,
    idempotent: true,
    external: skillExternal,
    async execute(args, ctx): Promise<SkillOutput> {
      const catalog = rt.catalog();
      const skill = catalog.get(args.name);
      if (skill === undefined) {
        const names = catalog.skills.filter((s) => s.modelInvocable).map((s) => s.name);
        throw skillError(
          SkillErrorCode.NOT_FOUND,
          `there is no skill named "${args.name}"; available: ${names.length === 0 ? '(none)' : names.slice(0, 50).join(', ')}`,
          { name: args.name },
        );
      }
      if (!skill.modelInvocable) {
        throw skillError(
          SkillErrorCode.NOT_MODEL_INVOCABLE,
          `the skill "${skill.name}" can only be started by the user (disable-model-invocation)`,
          {
            name: skill.name,
          },
        );
      }
      const { event, output } = madeFor(skill);
      await ctx.emit('skill/loaded', event);
      return output;
    },
    present: {
      presentCall: (args): Card => ({ title: `Load skill ${shown(args.name)}` }),
      presentResult: (args, outcome: Outcome): Card => {
        if (outcome.status !== 'ok') {
          const code = outcome.status === 'error' ? outcome.error.code : outcome.code;
          return { title: `Skill ${args.name} not loaded`, summary: `${outcome.status}: ${code}` };
        }
        const out = outcome.output as unknown as SkillOutput;
        let card = cards.get(out);
        if (card === undefined) {
          const files =
            out.files.length === 0 ? 'no bundled files' : `${out.files.length} bundled file${out.files.length === 1 ? '' : 's'}`;
          card = Object.freeze({
            title: `Skill ${out.name}`,
            summary: `${files}${out.allowedTools.length === 0 ? '' : `; pre-approves ${out.allowedTools.join(' ')}`}`,
            body: out.files.join('\n'),
          });
          cards.set(out, card);
        }
        return card;
      },
    },
  });
}

import type { Skill } from './skill.js';

/**
 * The skills' names and descriptions for the system prompt: what the model
 * needs to decide when to load one, and nothing more (progressive
 * disclosure). Skills with `disable-model-invocation` are left out. Empty
 * when there is no skill to offer.
 */
export function summarizeSkills(skills: readonly Skill[], toolName = 'skill'): string {
  const offered = skills.filter((s) => s.modelInvocable);
  if (offered.length === 0) return '';
  return [
    `Skills are folders of instructions for particular tasks. When a task matches a skill's description, call the \`${toolName}\` tool with its name before you start, then follow what it returns.`,
    'Available skills:',
    ...offered.map((s) => `- ${s.name}: ${s.description}`),
  ].join('\n');
}

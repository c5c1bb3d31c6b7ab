import { z } from '@deepseek-ai/dsh-core';
import { compileIfRule, type IfRule } from './if-rule.js';
import { type ConfigBuilder, type EventKind, forEachToolEvent, isObject, issueText } from './internal/config-builder.js';
import { compileMatcher } from './matcher.js';

const claudeEvents: Readonly<Record<string, EventKind>> = {
  PreToolUse: { phase: 'pre', on: 'both' },
  PostToolUse: { phase: 'post', on: 'success' },
  PostToolUseFailure: { phase: 'post', on: 'failure' },
};

/** Claude Code's default command-hook timeout since v2.1.3: 600 s. */
export const claudeDefaultTimeoutMs = 600_000;

const commandHandler = z.looseObject({
  type: z.literal('command'),
  command: z.string().min(1, 'must not be empty'),
  args: z.array(z.string()).optional(),
  timeout: z.number().positive().optional(),
  if: z.string().optional(),
  shell: z.enum(['bash', 'powershell']).optional(),
  async: z.boolean().optional(),
  asyncRewake: z.boolean().optional(),
  statusMessage: z.string().optional(),
  onFailure: z.enum(['block', 'continue']).optional(),
});

/**
 * Reads the `hooks` object of a Claude Code settings file (or hooks given in
 * code in the same shape). Events other than the tool events are ignored;
 * every unusable entry becomes a problem naming the entry, and the rest load.
 */
export function readClaudeHooks(hooks: unknown, builder: ConfigBuilder, where = 'hooks'): void {
  forEachToolEvent(hooks, claudeEvents, builder, where, 'matcher groups', (event, kind, groups, at) => {
    groups.forEach((group: unknown, g) => {
      readGroup(group, `${at}[${g}]`, event, kind, builder);
    });
  });
}

function readGroup(group: unknown, at: string, event: string, kind: EventKind, builder: ConfigBuilder): void {
  if (!isObject(group) || !Array.isArray(group.hooks)) {
    builder.problem(at, 'a matcher group must be an object with a "hooks" array', kind.phase);
    return;
  }
  const compiled = compileMatcher(group.matcher, 'claude');
  if (!compiled.ok) {
    builder.problem(`${at}.matcher`, compiled.message, kind.phase);
    return;
  }
  group.hooks.forEach((handler: unknown, h) => {
    const entry = `${at}.hooks[${h}]`;
    const type = isObject(handler) ? handler.type : undefined;
    if (typeof type === 'string' && type !== 'command') {
      builder.problem(entry, `hook type "${type}" is not supported by hooks-bridge (only "command")`, kind.phase);
      return;
    }
    const parsed = commandHandler.safeParse(handler);
    if (!parsed.success) {
      builder.problem(entry, issueText(parsed.error.issues), kind.phase);
      return;
    }
    const h2 = parsed.data;
    if (h2.shell === 'powershell') {
      builder.problem(entry, 'shell "powershell" is not supported by hooks-bridge', kind.phase);
      return;
    }
    let ifRule: IfRule | undefined;
    if (h2.if !== undefined) {
      const rule = compileIfRule(h2.if);
      if (!rule.ok) {
        builder.problem(`${entry}.if`, rule.message, kind.phase);
        return;
      }
      ifRule = rule.rule;
    }
    builder.add({
      id: `${builder.source}#${entry}`,
      dialect: 'claude',
      phase: kind.phase,
      on: kind.on,
      event,
      source: builder.source,
      matcher: compiled.matcher,
      ifRule,
      command: h2.command,
      args: h2.args,
      shell: h2.shell === 'bash' ? 'bash' : 'sh',
      cwd: undefined,
      env: {},
      timeoutMs: h2.timeout === undefined ? claudeDefaultTimeoutMs : Math.round(h2.timeout * 1000),
      failClosed: h2.onFailure === 'block',
      payloadStyle: 'snake',
      async: h2.async === true,
    });
  });
}

/** The `disableAllHooks` of a Claude Code settings file, when it sets one. */
export function claudeDisablesHooks(settings: Record<string, unknown>): boolean | undefined {
  return typeof settings.disableAllHooks === 'boolean' ? settings.disableAllHooks : undefined;
}

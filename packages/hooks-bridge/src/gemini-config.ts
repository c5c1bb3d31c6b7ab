import { z } from '@deepseek-ai/dsh-core';
import { type ConfigBuilder, type EventKind, forEachToolEvent, isObject, issueText } from './internal/config-builder.js';
import { compileMatcher } from './matcher.js';

const geminiEvents: Readonly<Record<string, EventKind>> = {
  BeforeTool: { phase: 'pre', on: 'both' },
  AfterTool: { phase: 'post', on: 'both' },
};

/** Gemini CLI's default hook timeout: 60 000 ms. */
export const geminiDefaultTimeoutMs = 60_000;

const commandHandler = z.looseObject({
  type: z.literal('command').optional(),
  command: z.string().min(1, 'must not be empty'),
  name: z.string().optional(),
  timeout: z.number().positive().optional(),
  description: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
});

/**
 * Reads the `hooks` object of a Gemini CLI settings file. Tool events are
 * BeforeTool and AfterTool (which fires after success and failure alike);
 * `timeout` is in milliseconds. Hooks named in `disabled` are skipped.
 */
export function readGeminiHooks(hooks: unknown, builder: ConfigBuilder, disabled: ReadonlySet<string>, where = 'hooks'): void {
  forEachToolEvent(hooks, geminiEvents, builder, where, 'hook definitions', (event, kind, groups, at) => {
    groups.forEach((group: unknown, g) => {
      const groupAt = `${at}[${g}]`;
      if (!isObject(group) || !Array.isArray(group.hooks)) {
        builder.problem(groupAt, 'a hook definition must be an object with a "hooks" array', kind.phase);
        return;
      }
      const compiled = compileMatcher(group.matcher, 'gemini');
      if (!compiled.ok) {
        builder.problem(`${groupAt}.matcher`, compiled.message, kind.phase);
        return;
      }
      group.hooks.forEach((handler: unknown, h) => {
        const entry = `${groupAt}.hooks[${h}]`;
        const parsed = commandHandler.safeParse(handler);
        if (!parsed.success) {
          builder.problem(entry, issueText(parsed.error.issues), kind.phase);
          return;
        }
        const spec = parsed.data;
        if (disabled.has(spec.name ?? '') || disabled.has(spec.command)) return;
        builder.add({
          id: `${builder.source}#${entry}`,
          dialect: 'gemini',
          phase: kind.phase,
          on: kind.on,
          event,
          source: builder.source,
          matcher: compiled.matcher,
          ifRule: undefined,
          command: spec.command,
          args: undefined,
          shell: 'bash',
          cwd: undefined,
          env: spec.env ?? {},
          timeoutMs: Math.round(spec.timeout ?? geminiDefaultTimeoutMs),
          failClosed: false,
          async: false,
          payloadStyle: 'snake',
        });
      });
    });
  });
}

/** Whether a Gemini settings file turns hooks off (`hooksConfig.enabled: false`), and the hook names it disables. */
export function geminiSwitches(settings: Record<string, unknown>): { enabled: boolean | undefined; disabled: string[] } {
  const config = isObject(settings.hooksConfig) ? settings.hooksConfig : {};
  const enabled = typeof config.enabled === 'boolean' ? config.enabled : undefined;
  const disabled = Array.isArray(config.disabled) ? config.disabled.filter((d): d is string => typeof d === 'string') : [];
  return { enabled, disabled };
}

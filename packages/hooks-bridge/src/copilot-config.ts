import { isAbsolute, resolve } from 'node:path';
import { z } from '@deepseek-ai/dsh-core';
import { type ConfigBuilder, type EventKind, forEachToolEvent, isObject, issueText } from './internal/config-builder.js';
import { compileMatcher } from './matcher.js';

const copilotEvents: Readonly<Record<string, EventKind & { readonly style: 'camel' | 'snake' }>> = {
  preToolUse: { phase: 'pre', on: 'both', style: 'camel' },
  postToolUse: { phase: 'post', on: 'success', style: 'camel' },
  postToolUseFailure: { phase: 'post', on: 'failure', style: 'camel' },
  PreToolUse: { phase: 'pre', on: 'both', style: 'snake' },
  PostToolUse: { phase: 'post', on: 'success', style: 'snake' },
  PostToolUseFailure: { phase: 'post', on: 'failure', style: 'snake' },
};

/** Copilot CLI's default hook timeout: 30 s. */
export const copilotDefaultTimeoutMs = 30_000;

const commandHandler = z.looseObject({
  type: z.literal('command'),
  bash: z.string().min(1, 'must not be empty').optional(),
  powershell: z.string().optional(),
  cwd: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  timeoutSec: z.number().positive().optional(),
  timeout: z.number().positive().optional(),
  matcher: z.string().optional(),
});

/**
 * Reads the `hooks` object of a Copilot CLI hook file (`.github/hooks/*.json`).
 * The spelling of the event picks the payload: `preToolUse` gets camelCase
 * fields, `PreToolUse` the VS Code-compatible snake_case ones. An entry with
 * only a `powershell` command does not run on POSIX and is skipped.
 */
export function readCopilotHooks(
  hooks: unknown,
  builder: ConfigBuilder,
  projectDir: string,
  env: NodeJS.ProcessEnv,
  where = 'hooks',
): void {
  forEachToolEvent(hooks, copilotEvents, builder, where, 'hooks', (event, kind, entries, at) => {
    entries.forEach((handler: unknown, h) => {
      const entry = `${at}[${h}]`;
      const type = isObject(handler) ? handler.type : undefined;
      if (typeof type === 'string' && type !== 'command') {
        builder.problem(entry, `hook type "${type}" is not supported on tool events`, kind.phase);
        return;
      }
      const parsed = commandHandler.safeParse(handler);
      if (!parsed.success) {
        builder.problem(entry, issueText(parsed.error.issues), kind.phase);
        return;
      }
      const spec = parsed.data;
      if (spec.bash === undefined) {
        if (spec.powershell === undefined) builder.problem(entry, 'needs a "bash" or "powershell" command', kind.phase);
        return;
      }
      const compiled = compileMatcher(spec.matcher, 'copilot');
      if (!compiled.ok) {
        builder.problem(`${entry}.matcher`, compiled.message, kind.phase);
        return;
      }
      const seconds = spec.timeoutSec ?? spec.timeout;
      builder.add({
        id: `${builder.source}#${entry}`,
        dialect: 'copilot',
        phase: kind.phase,
        on: kind.on,
        event,
        source: builder.source,
        matcher: compiled.matcher,
        ifRule: undefined,
        command: spec.bash,
        args: undefined,
        shell: 'bash',
        cwd: spec.cwd === undefined ? undefined : isAbsolute(spec.cwd) ? spec.cwd : resolve(projectDir, spec.cwd),
        env: expandEnv(spec.env ?? {}, env),
        timeoutMs: seconds === undefined ? copilotDefaultTimeoutMs : Math.round(seconds * 1000),
        failClosed: false,
        async: false,
        payloadStyle: kind.style,
      });
    });
  });
}

/** Copilot's `env` values may name other variables (`$HOME`, `${HOME}`); unknown ones become empty. */
function expandEnv(values: Record<string, string>, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    out[key] = value.replace(
      /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g,
      (_, a: string | undefined, b: string | undefined) => {
        return env[(a ?? b) as string] ?? '';
      },
    );
  }
  return out;
}

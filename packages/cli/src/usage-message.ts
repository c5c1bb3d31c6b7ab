import type { ParseArgsConfig } from 'node:util';
import { messageOf } from '@deepseek-ai/dsh-core';

type Options = NonNullable<ParseArgsConfig['options']>;

/** How one command's options read in a message: `-c/--config FILE, --json, …`. */
export function listOptions(options: Options): string {
  return Object.entries(options)
    .map(([name, spec]) => {
      const long = `--${name}`;
      const spelled = spec.short === undefined ? long : `-${spec.short}/${long}`;
      return spec.type === 'string' ? `${spelled} VALUE` : spelled;
    })
    .join(', ');
}

/**
 * The usage message for an error thrown by `parseArgs`. Node's own text for an
 * unknown option gives advice about positionals that never applies here (and
 * leaves a quote open), so that case is said plainly, with the valid options.
 */
export function parseErrorMessage(command: string, options: Options, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = messageOf(error);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const option = /'([^']+)'/.exec(message)?.[1] ?? '?';
    return `${command}: unknown option ${option}; ${command} takes ${listOptions(options)} (dsh ${command} --help)`;
  }
  return `${command}: ${message} (dsh ${command} --help)`;
}

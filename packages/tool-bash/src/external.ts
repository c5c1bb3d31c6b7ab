import type { Dialect, ExternalName } from '@deepseek-ai/dsh-core';
import { shellQuote } from './internal/shell.js';

type Input = Readonly<Record<string, unknown>>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Our `{ command, timeout?, description? }`, keeping only the fields that are set. */
function ours(command: string, timeout: number | undefined, description: string | undefined): Record<string, unknown> {
  const args: Record<string, unknown> = { command };
  if (timeout !== undefined) args.timeout = timeout;
  if (description !== undefined) args.description = description;
  return args;
}

/**
 * A per-call directory becomes a subshell that enters it first, so the
 * command runs there and the session's own directory does not change (the
 * other agents' semantics). A relative directory resolves against the
 * session's current directory.
 */
function inDirectory(command: string, directory: string | undefined): string {
  return directory === undefined || directory === '' ? command : `( cd -- ${shellQuote(directory)} || exit\n${command}\n)`;
}

/** Codex may send argv (`["bash", "-lc", "script"]`); a shell `-c` script is taken as is, other argv quoted word by word. */
function commandText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((w) => typeof w === 'string')) {
    const words = value as string[];
    const [shell, flag, script] = words;
    if (words.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(shell ?? '') && /^-l?c$/.test(flag ?? '')) return script ?? '';
    return words.map(shellQuote).join(' ');
  }
  return '';
}

/** Claude Code's `Bash`: `{ command, timeout? (ms), description?, run_in_background? }`; background runs are not supported and dropped. */
const claude: ExternalName = Object.freeze({
  name: 'Bash',
  toExternal: (args: Input) => ours(str(args.command) ?? '', num(args.timeout), str(args.description)),
  fromExternal: (input: Input) => ours(str(input.command) ?? '', num(input.timeout), str(input.description)),
});

/** Gemini CLI's `run_shell_command`: `{ command, description?, dir_path? }` (`directory` in older versions); no timeout. */
const gemini: ExternalName = Object.freeze({
  name: 'run_shell_command',
  toExternal: (args: Input) => {
    const out: Record<string, unknown> = { command: str(args.command) ?? '' };
    if (str(args.description) !== undefined) out.description = args.description;
    return out;
  },
  fromExternal: (input: Input) =>
    ours(inDirectory(str(input.command) ?? '', str(input.dir_path) ?? str(input.directory)), undefined, str(input.description)),
});

/** GitHub Copilot CLI's `bash`: `{ command, description? }`. */
const copilot: ExternalName = Object.freeze({
  name: 'bash',
  toExternal: (args: Input) => {
    const out: Record<string, unknown> = { command: str(args.command) ?? '' };
    if (str(args.description) !== undefined) out.description = args.description;
    return out;
  },
  fromExternal: (input: Input) => ours(str(input.command) ?? '', undefined, str(input.description)),
});

/** OpenAI Codex hooks' `Bash`: `{ command }` (a string, or argv), `workdir?`, `timeout_ms?`. */
const codex: ExternalName = Object.freeze({
  name: 'Bash',
  toExternal: (args: Input) => {
    const out: Record<string, unknown> = { command: str(args.command) ?? '' };
    if (num(args.timeout) !== undefined) out.timeout_ms = args.timeout;
    return out;
  },
  fromExternal: (input: Input) => ours(inDirectory(commandText(input.command), str(input.workdir)), num(input.timeout_ms), undefined),
});

/** The `bash` tool's names and argument mapping in other agents' vocabularies. */
export const bashExternalNames: Readonly<Partial<Record<Dialect, ExternalName>>> = Object.freeze({ claude, gemini, copilot, codex });

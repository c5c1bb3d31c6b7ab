import type { SandboxCommand } from '../sandbox/provider.js';

/** Quotes `text` as one word for bash: single quotes, with `'` written as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The script a fresh `bash -c` runs for one command. The command runs through
 * `eval`, so a syntax error is the command's failure (exit 2) and a heredoc
 * or an unclosed quote cannot swallow what follows. With `reportDirectory`,
 * an EXIT trap writes the final working directory on fd 3 (so `exit 3` or
 * `set -e` still report it); a command that replaces the EXIT trap or closes
 * fd 3 simply keeps the previous directory.
 */
export function shellScript(command: string, reportDirectory: boolean, cgroup?: { readonly procsFiles: readonly string[] }): string {
  const run = `eval ${shellQuote(command)}`;
  const body = reportDirectory ? `trap 'builtin pwd -P 2>/dev/null >&3' EXIT\n${run}` : run;
  return cgroup === undefined || cgroup.procsFiles.length === 0 ? body : `${joinCgroups(cgroup.procsFiles)}\n${body}`;
}

/**
 * Moves the shell itself into the call's cgroups before anything of the
 * command runs (`0` names the writing process), so that no process of the
 * call starts outside them. A failed write leaves the call to the sweep.
 */
function joinCgroups(files: readonly string[]): string {
  return `{ ${files.map((file) => `echo 0 >${shellQuote(file)}`).join('; ')}; } 2>/dev/null`;
}

/**
 * A launcher that joins the call's cgroups, then execs `command` (with its
 * extra descriptors): for sandboxes, whose inside cannot write `/sys`. It
 * fails with exit code 125 before running anything when a join fails.
 */
export function inCgroups(files: readonly string[], command: SandboxCommand): SandboxCommand {
  const script = 'while [ "$1" != -- ]; do echo 0 >"$1" || exit 125; shift; done; shift; exec "$@"';
  return { ...command, file: '/bin/sh', args: ['-c', script, 'dsh-bash-cgroup', ...files, '--', command.file, ...command.args] };
}

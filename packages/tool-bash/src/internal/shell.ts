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
export function shellScript(command: string, reportDirectory: boolean): string {
  const run = `eval ${shellQuote(command)}`;
  return reportDirectory ? `trap 'builtin pwd -P 2>/dev/null >&3' EXIT\n${run}` : run;
}

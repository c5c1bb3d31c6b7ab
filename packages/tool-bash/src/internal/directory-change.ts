/**
 * Words that run or load other shell code in the same shell, or change its
 * directory. `.` is listed as a word of its own, so `find . -name x` takes the
 * tracked path too: a false alarm costs a tenth of a millisecond, a miss
 * would lose a `cd`.
 */
const riskyWords = new Set(['cd', 'pushd', 'popd', 'source', '.', 'eval', 'builtin', 'command', 'enable', 'shopt', 'fc', 'alias']);

/** Expansions that can produce a command word the text does not spell: parameters, commands, globs, braces. */
const expansionCharacters = /[$`*?[{}]/;

/** Variables that make bash run code the command does not contain (`BASH_ENV`, exported functions) or change globbing. */
function environmentRunsCode(env: Readonly<Record<string, string>>): boolean {
  return Object.keys(env).some(
    (name) => name === 'BASH_ENV' || name === 'BASHOPTS' || name === 'SHELLOPTS' || name.startsWith('BASH_FUNC_'),
  );
}

/**
 * Whether a command could leave bash in another working directory, decided
 * conservatively from its text: quotes and backslashes are dropped first (so
 * `c'd'` and `c\d` are seen as `cd`), then any expansion character or any of
 * the risky words means "maybe". Only a command that answers `false` may run
 * without the directory report (the EXIT trap and the fd 3 pipe), which saves
 * about a tenth of a millisecond on short commands.
 */
export function mayChangeDirectory(command: string, env: Readonly<Record<string, string>>): boolean {
  if (environmentRunsCode(env)) return true;
  const plain = command.replace(/['"\\]/g, '');
  if (expansionCharacters.test(plain)) return true;
  for (const word of plain.split(/[\s;&|()<>!]+/)) if (riskyWords.has(word)) return true;
  return false;
}

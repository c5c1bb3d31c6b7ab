import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/**
 * The script a hook command starts, when the command names one by path and that file cannot be
 * executed (it lacks its execute bit): such a hook fails on every call it matches (exit 126), and
 * only running it would show that. Commands that start an interpreter (`bash x.sh`, `node x.js`)
 * or a program found on PATH are not looked at.
 */
export function unexecutableScript(command: string, projectDir: string, env: NodeJS.ProcessEnv): string | undefined {
  const first = firstWord(command);
  if (first === undefined || !first.includes('/')) return undefined;
  const vars: NodeJS.ProcessEnv = { ...env, CLAUDE_PROJECT_DIR: projectDir, GEMINI_PROJECT_DIR: projectDir };
  const expanded = first
    .replace(/^~(?=\/)/, env.HOME ?? '~')
    .replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced: string | undefined, bare: string | undefined) => vars[braced ?? bare ?? ''] ?? whole);
  if (expanded.includes('$')) return undefined;
  const path = isAbsolute(expanded) ? expanded : resolve(projectDir, expanded);
  try {
    if (!statSync(path).isFile()) return undefined;
    accessSync(path, constants.X_OK);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EACCES' ? path : undefined;
  }
}

/** The first word of a shell command, its quoted and unquoted parts joined and their quotes taken off. */
function firstWord(command: string): string | undefined {
  let word = '';
  let i = command.length - command.trimStart().length;
  while (i < command.length) {
    const c = command[i] as string;
    if (/[\s;&|<>()]/.test(c)) break;
    if (c === '"' || c === "'") {
      const end = command.indexOf(c, i + 1);
      if (end === -1) return undefined;
      word += command.slice(i + 1, end);
      i = end + 1;
    } else {
      word += c;
      i += 1;
    }
  }
  return word === '' ? undefined : word;
}

import type { Host } from '@deepseek-ai/dsh-core';
import type { PermissionsPlugin } from '@deepseek-ai/dsh-permissions';
import type { CliIo } from './io.js';

/**
 * Something a plugin could not take from the configuration while the host was built: a settings
 * file that is not JSON (none of its rules or hooks are in force), a rule or hook entry left out,
 * a skill or agent definition skipped. Nothing of it is in force, so every command that loads
 * settings says so before it does anything else.
 */
export interface ConfigProblem {
  readonly code: string;
  /** The plugin that skipped it (`permissions`, `hooks-bridge`, …). */
  readonly source: string;
  /** Names the file, with its line (and column) where known. */
  readonly message: string;
}

/**
 * The configuration problems the plugins recorded on `host` while they registered. A rule that
 * dsh applies with a meaning other than Claude Code's is in force, so it is not one of them
 * (`dsh config check` lists those as differences).
 */
export function configProblemsOf(host: Host, permissions: PermissionsPlugin | undefined): ConfigProblem[] {
  const applied = new Set(
    (permissions?.problems() ?? []).filter((p) => p.difference?.dsh === 'applied').map((p) => `${p.code}\u0000${p.message}`),
  );
  return host.diagnostics
    .list()
    .filter((d) => !(d.source === 'permissions' && applied.has(`${d.code}\u0000${d.message}`)))
    .map(({ code, source, message }) => ({ code, source, message }));
}

/** The problems as lines a person reads, one a problem, with what to do about them. */
export function describeConfigProblems(problems: readonly ConfigProblem[]): string {
  const count = problems.length === 1 ? 'a configuration problem' : `${problems.length} configuration problems`;
  const lines = problems.map((p) => `  ${p.message} [${p.source} ${p.code}]`);
  return `${count}: what ${problems.length === 1 ? 'it names is' : 'they name is'} not in force\n${lines.join('\n')}\n`;
}

/** Writes the problems to stderr, before the command's own output; nothing when there are none. */
export function announceConfigProblems(io: CliIo, problems: readonly ConfigProblem[]): void {
  if (problems.length === 0) return;
  io.stderr.write(`dsh: ${describeConfigProblems(problems)}  (dsh config check shows them all; --strict makes them fatal)\n`);
}

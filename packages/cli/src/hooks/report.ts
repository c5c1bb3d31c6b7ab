import type { HookConfigProblem } from '@deepseek-ai/dsh-hooks-bridge';
import { indent } from '../render/cards.js';
import type { Style } from '../render/style.js';

/** One configured hook as `dsh hooks check` reports it. */
export interface HookRun {
  readonly id: string;
  readonly source: string;
  readonly event: string;
  readonly dialect: string;
  /** True when its matcher (and `if`) match the sample call; only pre hooks run. */
  readonly matched: boolean;
  /** Why it matched or did not. */
  readonly why: string;
  readonly ran: boolean;
  /** The tool's name and input as this hook's dialect sees them. */
  readonly toolName: string;
  readonly toolInput: Record<string, unknown>;
  readonly command?: string;
  readonly stdin?: string | undefined;
  readonly stdout?: string | undefined;
  readonly stderr?: string;
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly timedOut?: boolean;
  readonly durationMs?: number;
  /** The decision read from its answer (`deny`, `allow`, `ask`, `rewrite`, …). */
  readonly decision?: string | undefined;
  readonly error?: string | undefined;
  readonly errorCode?: string | undefined;
  /** Why its answer had the effect it had. */
  readonly effect?: string;
}

/** The whole check, for `--json` and for the terminal. */
export interface HooksCheckReport {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly hooks: readonly HookRun[];
  readonly problems: readonly HookConfigProblem[];
  readonly decision: 'allow' | 'deny' | 'ask' | 'none';
  readonly reason?: string;
  readonly updatedArgs?: unknown;
  readonly context: readonly string[];
}

/** Renders the check for a terminal. */
export function renderHooksCheck(style: Style, report: HooksCheckReport): string {
  const out: string[] = [`${style.bold('call:')} ${report.tool} ${JSON.stringify(report.args)}`];
  if (report.problems.length > 0) {
    out.push('', style.bold(style.yellow('configuration problems (these entries are skipped; the others run):')));
    for (const p of report.problems) out.push(`  ${p.source}${p.entry === '' ? '' : ` ${p.entry}`}: ${p.message}`);
  }
  if (report.hooks.length === 0)
    out.push('', 'no hooks are configured (looked in .claude/, .gemini/, .github/hooks/ and the user settings)');
  for (const h of report.hooks) {
    const mark = h.ran ? style.cyan('▶ ran') : h.matched ? style.dim('· matched, did not run') : style.dim('· skipped');
    out.push('', `${style.bold(h.id)} ${style.dim(`(${h.dialect} ${h.event})`)} ${mark}`);
    out.push(`  ${h.why}`);
    if (!h.ran) continue;
    out.push(`  command:   ${h.command}`);
    out.push(`  stdin:     ${(h.stdin ?? '(not captured)').trimEnd()}`);
    const exit =
      h.timedOut === true
        ? `timed out after ${h.durationMs} ms`
        : h.exitCode === null
          ? `killed by ${h.signal ?? 'a signal'}`
          : String(h.exitCode);
    out.push(`  exit code: ${exit} ${style.dim(`(${Math.round(h.durationMs ?? 0)} ms)`)}`);
    out.push(`  stdout:    ${block(h.stdout)}`);
    out.push(`  stderr:    ${block(h.stderr)}`);
    out.push(`  decision:  ${h.decision ?? 'none'}${h.errorCode === undefined ? '' : ` ${style.red(h.errorCode)}`}`);
    out.push(`  effect:    ${h.effect ?? ''}`);
  }
  const colour =
    report.decision === 'deny'
      ? style.red
      : report.decision === 'ask'
        ? style.yellow
        : report.decision === 'allow'
          ? style.green
          : style.dim;
  out.push(
    '',
    `${style.bold('combined decision:')} ${colour(report.decision)}${report.decision === 'none' ? ' (no hook decided: the rest of the pipeline decides)' : ''}`,
  );
  if (report.reason !== undefined) out.push(indent(report.reason, '  '));
  if (report.updatedArgs !== undefined) out.push(`${style.bold('rewritten arguments:')} ${JSON.stringify(report.updatedArgs)}`);
  if (report.context.length > 0) {
    out.push(style.bold('context for the model:'));
    for (const c of report.context) out.push(indent(c, '  '));
  }
  return `${out.join('\n')}\n`;
}

function block(text: string | undefined): string {
  if (text === undefined) return '(not captured)';
  const trimmed = text.trimEnd();
  if (trimmed === '') return '(empty)';
  return trimmed.includes('\n') ? `\n${indent(trimmed, '    │ ')}` : trimmed;
}

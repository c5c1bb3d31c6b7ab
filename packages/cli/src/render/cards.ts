import type { CallIdentity, Card, Outcome } from '@deepseek-ai/dsh-core';
import { counted } from './plural.js';
import type { Style } from './style.js';

const maxBodyLines = 40;

/** Indents every line of `text`. */
export function indent(text: string, by = '    '): string {
  return text
    .split('\n')
    .map((line) => `${by}${line}`)
    .join('\n');
}

/**
 * A call about to be checked and run: `● title [id] summary`, then, for a
 * program (`format: 'code'`), its text, so it is read before its sub-calls run.
 */
export function renderPending(style: Style, call: CallIdentity, card: Card): string {
  const head = `${style.cyan('●')} ${style.bold(card.title)} ${style.dim(`[${call.id}]`)}${card.summary ? ` ${style.dim(card.summary)}` : ''}`;
  return showsBodyWhenPending(card) ? `${head}\n${renderBody(style, card)}` : head;
}

/**
 * Whether the pending card shows its body: programs (code of more than one
 * line), which are worth reading before they run and before the calls they
 * make. A one-line command is in the summary already.
 */
export function showsBodyWhenPending(card: Card): boolean {
  const body = card.body?.trim() ?? '';
  return card.format === 'code' && body.includes('\n') && body !== card.summary?.trim();
}

/**
 * Why an `ok` outcome still failed at a glance: a command's non-zero exit
 * or its signal (`exit 1`, `killed by SIGKILL`). The outcome stays `ok`, since
 * the model needs the output; the card shows a failure.
 */
export function failureOfOk(outcome: Outcome): string | undefined {
  if (outcome.status !== 'ok' || typeof outcome.output !== 'object' || outcome.output === null) return undefined;
  const output = outcome.output as { exitCode?: unknown; signal?: unknown };
  if (typeof output.signal === 'string' && output.signal !== '') return `killed by ${output.signal}`;
  if (typeof output.exitCode === 'number' && output.exitCode !== 0) return `exit ${output.exitCode}`;
  return undefined;
}

/** Who decided an outcome: `guard: demo/no-force-push`, `execute`, … */
export function decidedBy(outcome: Outcome): string {
  return outcome.by === undefined || outcome.by === outcome.stage ? outcome.stage : `${outcome.stage}: ${outcome.by}`;
}

/** The code of a non-ok outcome (`FS_NOT_READ`, `TOOL_TIMEOUT`, …); undefined for ok. */
export function codeOf(outcome: Outcome): string | undefined {
  if (outcome.status === 'ok') return undefined;
  return outcome.status === 'error' ? outcome.error.code : outcome.code;
}

/** What {@link renderCompleted} may leave out. */
export interface CompletedOptions {
  /** Leave the body out: the pending card showed it already (a program's text). */
  readonly omitBody?: boolean;
}

/**
 * A call with its one result: `✔ title [id] ok (stage)`,
 * `✘ title [id] denied FS_NOT_READ (execute: tool-fs/read-before-edit)`, or
 * for an `ok` command that exited non-zero `✘ bash [id] exit 1 (execute)`,
 * then the card's body: diffs coloured line by line, long bodies cut.
 */
export function renderCompleted(style: Style, call: CallIdentity, card: Card, outcome: Outcome, options: CompletedOptions = {}): string {
  const failed = failureOfOk(outcome);
  const colour = outcome.status === 'ok' && failed === undefined ? style.green : outcome.status === 'denied' ? style.yellow : style.red;
  // An ok command that failed reads as its failure (`exit 1`), not `ok, exit 1`: the model still gets its output.
  const code = failed === undefined ? codeOf(outcome) : undefined;
  const status = failed ?? outcome.status;
  const head = `${colour(outcome.status === 'ok' && failed === undefined ? '✔' : '✘')} ${style.bold(card.title)} ${style.dim(
    `[${call.id}]`,
  )} ${colour(status)}${code === undefined ? '' : ` ${colour(code)}`} ${style.dim(`(${decidedBy(outcome)})`)}`;
  // A summary that only repeats the status or code (`denied: FS_NOT_READ`, `exit 1`) says nothing the head does not.
  const repeats =
    card.summary === outcome.status || card.summary === failed || (code !== undefined && card.summary?.endsWith(code) === true);
  const summary = card.summary && !repeats ? ` ${card.summary}` : '';
  const why = reasonText(outcome);
  const reason = why !== undefined && why !== card.body ? `\n${indent(why)}` : '';
  const body = card.body && options.omitBody !== true ? `\n${renderBody(style, card)}` : '';
  return `${head}${summary}${reason}${body}`;
}

function reasonText(outcome: Outcome): string | undefined {
  if (outcome.status === 'denied' || outcome.status === 'blocked') return outcome.reason;
  if (outcome.status === 'error') return outcome.error.message;
  return undefined;
}

function renderBody(style: Style, card: Card): string {
  // Programs are often written starting on a fresh line; the card does not need the blank one.
  let lines = (card.body ?? '')
    .replace(/^[ \t]*\n/, '')
    .replace(/\n$/, '')
    .split('\n');
  if (lines.length > maxBodyLines) lines = [...lines.slice(0, maxBodyLines), `… ${counted(lines.length - maxBodyLines, 'more line')}`];
  if (card.format === 'diff') {
    lines = lines.map((line) =>
      line.startsWith('+') && !line.startsWith('+++')
        ? style.green(line)
        : line.startsWith('-') && !line.startsWith('---')
          ? style.red(line)
          : line.startsWith('@@')
            ? style.cyan(line)
            : line,
    );
  }
  return indent(lines.join('\n'));
}

/**
 * Paths as the reader of a terminal sees them best: relative to `root` (the
 * workspace), in every card alike, whether the tool echoed the path the
 * model sent (`src/app.js`) or the absolute path it resolved.
 */
export function relativeTo(root: string | undefined, text: string): string {
  if (root === undefined || root === '' || root === '/') return text;
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return text.split(prefix).join('');
}

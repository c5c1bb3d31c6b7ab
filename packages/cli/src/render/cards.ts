import type { CallIdentity, Card, Outcome } from '@deepseek-ai/dsh-core';
import type { Style } from './style.js';

const maxBodyLines = 40;

/** Indents every line of `text`. */
export function indent(text: string, by = '    '): string {
  return text
    .split('\n')
    .map((line) => `${by}${line}`)
    .join('\n');
}

/** A call about to be checked and run: `● title [id] summary`. */
export function renderPending(style: Style, call: CallIdentity, card: Card): string {
  return `${style.cyan('●')} ${style.bold(card.title)} ${style.dim(`[${call.id}]`)}${card.summary ? ` ${style.dim(card.summary)}` : ''}`;
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

/**
 * A call with its one result: `✔ title [id] ok (stage)` or
 * `✘ title [id] denied FS_NOT_READ (execute: tool-fs/read-before-edit)`,
 * then the card's body: diffs coloured line by line, long bodies cut.
 */
export function renderCompleted(style: Style, call: CallIdentity, card: Card, outcome: Outcome): string {
  const colour = outcome.status === 'ok' ? style.green : outcome.status === 'error' ? style.red : style.yellow;
  const code = codeOf(outcome);
  const head = `${colour(outcome.status === 'ok' ? '✔' : '✘')} ${style.bold(card.title)} ${style.dim(`[${call.id}]`)} ${colour(
    outcome.status,
  )}${code === undefined ? '' : ` ${colour(code)}`} ${style.dim(`(${decidedBy(outcome)})`)}`;
  // A summary that only repeats the status or code (`denied: FS_NOT_READ`) says nothing the head does not.
  const repeats = card.summary === outcome.status || (code !== undefined && card.summary?.endsWith(code) === true);
  const summary = card.summary && !repeats ? ` ${card.summary}` : '';
  const why = reasonText(outcome);
  const reason = why !== undefined && why !== card.body ? `\n${indent(why)}` : '';
  const body = card.body ? `\n${renderBody(style, card)}` : '';
  return `${head}${summary}${reason}${body}`;
}

function reasonText(outcome: Outcome): string | undefined {
  if (outcome.status === 'denied' || outcome.status === 'blocked') return outcome.reason;
  if (outcome.status === 'error') return outcome.error.message;
  return undefined;
}

function renderBody(style: Style, card: Card): string {
  let lines = (card.body ?? '').replace(/\n$/, '').split('\n');
  if (lines.length > maxBodyLines) lines = [...lines.slice(0, maxBodyLines), `… ${lines.length - maxBodyLines} more lines`];
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

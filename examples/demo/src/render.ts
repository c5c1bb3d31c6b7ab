// Renders cards and events for a terminal: colour on a TTY, plain text otherwise.
import type { CallIdentity, Card, Outcome } from '@deepseek-ai/dsh-core';

const useColour = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
const paint = (code: number) => (text: string) => (useColour ? `\u001b[${code}m${text}\u001b[0m` : text);
export const bold = paint(1);
export const dim = paint(2);
const red = paint(31);
const green = paint(32);
const yellow = paint(33);
const cyan = paint(36);

const statusColour: Record<Outcome['status'], (t: string) => string> = { ok: green, error: red, denied: yellow, blocked: yellow };

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

/** A call about to be checked and run. */
export function pendingCard(call: CallIdentity, card: Card): string {
  return `${cyan('●')} ${bold(card.title)} ${dim(`[${call.id}]`)}${card.summary ? ` ${dim(card.summary)}` : ''}`;
}

/** A call with its one result. */
export function completedCard(call: CallIdentity, card: Card, outcome: Outcome): string {
  const colour = statusColour[outcome.status];
  const decided = outcome.by === undefined || outcome.by === outcome.stage ? outcome.stage : `${outcome.stage}: ${outcome.by}`;
  const head = `${colour(outcome.status === 'ok' ? '✔' : '✘')} ${bold(card.title)} ${dim(`[${call.id}]`)} ${colour(outcome.status)} ${dim(`(${decided})`)}`;
  const body = card.body ? `\n${indent(card.body)}` : '';
  return `${head}${card.summary ? ` ${card.summary}` : ''}${body}`;
}

/** A section heading. */
export function heading(text: string): string {
  return `\n${bold(text)}`;
}

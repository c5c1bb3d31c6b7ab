import type { Card } from '@deepseek-ai/dsh-core';
import { indent } from '../render/cards.js';
import { counted } from '../render/plural.js';

const maxCommandLines = 20;
const maxArgsChars = 300;

/** What an approval question shows of the call: its subject on the question line, and the detail below it. */
export interface ApprovalSubject {
  /** `bash: git push origin main`, `Write src/app.js (1 line, 12 bytes)`. */
  readonly subject: string;
  /** More lines of a multi-line command, or the arguments as JSON (cut), indented; absent when the subject says it all. */
  readonly detail?: string;
}

/**
 * Names what a call would do, so a question never reads `wants to run
 * write` alone: a command tool's command, otherwise the call's pending card
 * (which names the file), with the arguments below it for anything else.
 */
export function approvalSubject(tool: string, args: unknown, card: Card | undefined): ApprovalSubject {
  const command = typeof args === 'object' && args !== null ? (args as { command?: unknown }).command : undefined;
  const title = card?.title ?? tool;
  if (typeof command === 'string' && command.trim() !== '') {
    const [first = '', ...rest] = command.trim().split('\n');
    if (rest.length === 0) return { subject: `${title}: ${first}` };
    const shown =
      rest.length > maxCommandLines
        ? [...rest.slice(0, maxCommandLines), `… ${counted(rest.length - maxCommandLines, 'more line')}`]
        : rest;
    return { subject: `${title}: ${first}`, detail: indent(shown.join('\n'), '      ') };
  }
  const json = JSON.stringify(args) ?? '';
  const cut = json.length > maxArgsChars ? `${json.slice(0, maxArgsChars)}…` : json;
  const summary = card?.summary === undefined || card.summary === '' ? '' : ` (${card.summary})`;
  return { subject: `${title}${summary}`, ...(cut === '' || cut === '{}' ? {} : { detail: `    ${cut}` }) };
}

import type { Card, Outcome } from '@deepseek-ai/dsh-core';

/** A short, printable form of an argument the model sent (presenters see unchecked args). */
export function shown(value: unknown, limit = 120): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** The completed card of a call that did not produce output. */
export function failureCard(title: string, outcome: Outcome): Card | undefined {
  switch (outcome.status) {
    case 'ok':
      return undefined;
    case 'error':
      return { title, summary: `failed: ${outcome.error.code}`, body: outcome.error.message };
    default:
      return { title, summary: `${outcome.status}: ${outcome.code}`, body: outcome.reason };
  }
}

/** The `output` of an ok outcome as an object, for result presenters. */
export function outputOf(outcome: Outcome): Readonly<Record<string, unknown>> {
  return outcome.status === 'ok' && typeof outcome.output === 'object' && outcome.output !== null
    ? (outcome.output as Readonly<Record<string, unknown>>)
    : {};
}

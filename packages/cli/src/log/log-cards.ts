import type { Card, Host, Outcome } from '@deepseek-ai/dsh-core';
import type { CallView } from './session-view.js';

/**
 * The completed card of a logged call, made by the tool's own presenter as
 * the demo shows it, when a tool of that name is configured here and the
 * logged arguments still pass its schema; otherwise a plain card built from
 * the outcome. A presenter that throws gets the plain card too.
 */
export function cardOf(host: Host | undefined, call: CallView, outcome: Outcome): Card {
  const tool = host?.tools.get(call.name);
  const present = tool?.present?.presentResult;
  if (tool !== undefined && present !== undefined) {
    // The arguments the body ran with, when a tap rewrote them; else those the model sent.
    const effective = call.result?.args ?? call.args;
    const parsed = tool.input.safeParse(typeof effective === 'string' ? parseOrUndefined(effective) : effective);
    if (parsed.success) {
      try {
        return present(parsed.data, outcome);
      } catch {
        // Presenters of another version may not read this log's outcomes: the plain card still tells the story.
      }
    }
  }
  return plainCard(call.name, outcome);
}

/** A card from the outcome alone, for tools without a presenter here. */
export function plainCard(name: string, outcome: Outcome): Card {
  switch (outcome.status) {
    case 'ok':
      return { title: name, summary: 'done', body: cut(json(outcome.output), 2000) };
    case 'error':
      return { title: name, summary: `failed: ${outcome.error.code}`, body: outcome.error.message };
    default:
      return { title: name, summary: outcome.status, body: outcome.reason };
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

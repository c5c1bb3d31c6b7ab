import type { JsonValue } from './json.js';
import type { CallIdentity, Outcome } from './outcome.js';
import type { Card } from './tool.js';

/**
 * Where cards go: a terminal, a web UI, a test recorder. Every method is
 * optional; one that throws or passes the host's `uiTimeoutMs` is recorded
 * as a diagnostic and never fails the call.
 */
export interface UiAdapter {
  /** A call is about to be checked and run (stage 2). */
  pending?(call: CallIdentity, card: Card): void | Promise<void>;
  /** A call has its one result (stage 14). */
  completed?(call: CallIdentity, card: Card, outcome: Outcome): void | Promise<void>;
  /** Live progress from a running body. Not awaited. */
  progress?(call: CallIdentity, update: JsonValue): void;
}

/** The card shown when a tool has no presenter, or its presenter threw. */
export function genericCallCard(name: string, args: unknown): Card {
  return { title: name, summary: summarise(args) };
}

/** The completed card shown when a tool has no presenter, or its presenter threw. */
export function genericResultCard(name: string, outcome: Outcome): Card {
  switch (outcome.status) {
    case 'ok':
      return { title: name, summary: 'done', body: summarise(outcome.output, 2000) };
    case 'error':
      return { title: name, summary: `failed: ${outcome.error.code}`, body: outcome.error.message };
    default:
      return { title: name, summary: outcome.status, body: outcome.reason };
  }
}

function summarise(value: unknown, limit = 200): string {
  let text: string;
  try {
    text =
      typeof value === 'string'
        ? value
        : (JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

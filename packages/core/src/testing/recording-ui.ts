import type { JsonValue } from '../json.js';
import type { CallIdentity, Outcome } from '../outcome.js';
import type { Card } from '../tool.js';
import type { UiAdapter } from '../ui.js';

/** A card as the UI received it. */
export type RecordedCard =
  | { readonly kind: 'pending'; readonly call: CallIdentity; readonly card: Card }
  | { readonly kind: 'completed'; readonly call: CallIdentity; readonly card: Card; readonly outcome: Outcome };

/** A UI adapter that records every card and progress update, in order. */
export class RecordingUi implements UiAdapter {
  readonly cards: RecordedCard[] = [];
  readonly progressUpdates: { readonly call: CallIdentity; readonly update: JsonValue }[] = [];

  pending(call: CallIdentity, card: Card): void {
    this.cards.push({ kind: 'pending', call, card });
  }

  completed(call: CallIdentity, card: Card, outcome: Outcome): void {
    this.cards.push({ kind: 'completed', call, card, outcome });
  }

  progress(call: CallIdentity, update: JsonValue): void {
    this.progressUpdates.push({ call, update });
  }
}

import { randomBytes } from 'node:crypto';

/**
 * Hands out one marker per call: a random prefix drawn once per plugin
 * instance and a counter. Unique across the calls of this instance, and (by
 * the 96-bit prefix) across every other dsh process on the machine, so the
 * escapee sweep never touches another session's processes. Drawing random
 * bytes per call costs tens of microseconds right after a fork; a counter
 * does not.
 */
export class CallMarkers {
  readonly #prefix = randomBytes(12).toString('hex');
  #count = 0;

  next(): string {
    this.#count += 1;
    return `${this.#prefix}${this.#count.toString(36)}`;
  }
}

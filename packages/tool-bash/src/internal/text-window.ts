/**
 * Keeps the head and the tail of a text stream within a fixed budget of
 * UTF-16 code units, however much text goes through it, and counts what was
 * dropped in between. Cuts never split a surrogate pair.
 */
export class TextWindow {
  readonly #limit: number;
  readonly #headBudget: number;
  #head = '';
  #headFull = false;
  #tail: string[] = [];
  #tailLength = 0;
  #total = 0;

  constructor(limit: number) {
    this.#limit = limit;
    this.#headBudget = Math.ceil(limit / 2);
  }

  /** Code units appended so far. */
  get total(): number {
    return this.#total;
  }

  append(text: string): void {
    if (text.length === 0) return;
    this.#total += text.length;
    let rest = text;
    if (!this.#headFull) {
      const room = this.#headBudget - this.#head.length;
      if (rest.length <= room) {
        this.#head += rest;
        return;
      }
      let cut = room;
      if (cut > 0 && isHighSurrogate(rest.charCodeAt(cut - 1))) cut -= 1;
      this.#head += rest.slice(0, cut);
      this.#headFull = true;
      rest = rest.slice(cut);
    }
    this.#tail.push(rest);
    this.#tailLength += rest.length;
    // Compact only once the tail holds twice its budget, so each unit is copied a bounded number of times.
    if (this.#tailLength > this.#tailBudget() * 2 + 1024) this.#compact();
  }

  /**
   * The kept text: everything when nothing was dropped, else head, the marker
   * (given the number of dropped code units) and tail.
   */
  render(marker: (omitted: number) => string): { readonly text: string; readonly omitted: number } {
    this.#compact();
    const tail = this.#tail.join('');
    const omitted = this.#total - this.#head.length - tail.length;
    return omitted === 0 ? { text: this.#head + tail, omitted } : { text: this.#head + marker(omitted) + tail, omitted };
  }

  /** What the head leaves of the limit: exactly the limit is kept when nothing more came. */
  #tailBudget(): number {
    return this.#limit - this.#head.length;
  }

  #compact(): void {
    let tail = this.#tail.join('');
    const budget = this.#tailBudget();
    if (tail.length > budget) {
      let start = tail.length - budget;
      if (isLowSurrogate(tail.charCodeAt(start))) start += 1;
      tail = tail.slice(start);
    }
    this.#tail = tail.length === 0 ? [] : [tail];
    this.#tailLength = tail.length;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

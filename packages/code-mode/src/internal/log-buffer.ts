/**
 * The console output of one run, capped at `maxChars`. Lines past the cap
 * are counted, not kept, and the text ends with a marker saying so.
 */
export class LogBuffer {
  readonly #maxChars: number;
  readonly #lines: string[] = [];
  #chars = 0;
  #dropped = 0;
  #cut = false;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  /** Adds a line; returns true once the buffer is full (further lines are only counted). */
  append(line: string): boolean {
    if (this.full) {
      this.#dropped += 1;
      return true;
    }
    const room = this.#maxChars - this.#chars;
    if (line.length > room) {
      this.#lines.push(line.slice(0, room));
      this.#chars = this.#maxChars;
      this.#cut = true;
      return true;
    }
    this.#lines.push(line);
    this.#chars += line.length + 1;
    return this.full;
  }

  /** Counts lines the guest dropped on its side once it knew the buffer was full. */
  droppedByGuest(lines: number): void {
    if (Number.isSafeInteger(lines) && lines > 0) this.#dropped += lines;
  }

  /** True once no more output is kept. */
  get full(): boolean {
    return this.#cut || this.#chars >= this.#maxChars;
  }

  /** True when some output was cut or dropped. */
  get truncated(): boolean {
    return this.#cut || this.#dropped > 0;
  }

  /** The kept output, one line per console call, with a marker when some was cut or dropped. */
  text(): string {
    const body = this.#lines.join('\n');
    if (!this.truncated) return body;
    const dropped = this.#dropped > 0 ? `; ${this.#dropped} more line(s) dropped` : '';
    return `${body}\n…[console output truncated at ${this.#maxChars} characters${dropped}]`;
  }
}

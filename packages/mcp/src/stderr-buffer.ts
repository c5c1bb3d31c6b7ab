/**
 * The last `limit` bytes a server wrote to stderr, for diagnostics. Older
 * output is dropped, so a chatty server cannot grow memory.
 */
export class StderrBuffer {
  readonly #limit: number;
  #chunks: Buffer[] = [];
  #bytes = 0;
  #dropped = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Appends a chunk, dropping the oldest bytes beyond the limit. */
  push(chunk: Buffer): void {
    if (this.#limit === 0) {
      this.#dropped += chunk.length;
      return;
    }
    const piece = chunk.length > this.#limit ? chunk.subarray(chunk.length - this.#limit) : chunk;
    this.#dropped += chunk.length - piece.length;
    this.#chunks.push(piece);
    this.#bytes += piece.length;
    while (this.#bytes > this.#limit) {
      const first = this.#chunks[0] as Buffer;
      const over = this.#bytes - this.#limit;
      if (first.length <= over) {
        this.#chunks.shift();
        this.#bytes -= first.length;
        this.#dropped += first.length;
      } else {
        this.#chunks[0] = first.subarray(over);
        this.#bytes -= over;
        this.#dropped += over;
      }
    }
  }

  /** The kept text (the tail of stderr), decoded as UTF-8. */
  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }

  /** How many bytes were dropped from the front. */
  get droppedBytes(): number {
    return this.#dropped;
  }
}

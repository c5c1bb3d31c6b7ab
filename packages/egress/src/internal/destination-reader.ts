import type { Socket } from 'node:net';

/** The most a tunnel reads from its destination at once: one buffer of this size per tunnel. */
const readBufferBytes = 64 * 1024;

/**
 * Reads a tunnel's destination into one buffer of its own (net's `onread`) and writes each chunk to
 * the client before the next read. A socket's default reads allocate a fresh buffer per chunk: a
 * 50 MB download leaves some 800 of them to the garbage collector, and in a process with core loaded
 * that pressure ends in repeated mark-compacts, which cost the tunnel more than moving the bytes (the
 * package bench shows the download and peak RSS with and without it). Until the tunnel starts, what
 * arrives is copied aside and reading stops.
 */
export class DestinationReader {
  private readonly buffer = Buffer.allocUnsafe(readBufferBytes);
  private source: Socket | undefined;
  private sink: Socket | undefined;
  private held: Buffer[] = [];
  private waiting = false;

  /** The `onread` option for `net.connect`. */
  readonly onread = { buffer: this.buffer, callback: (bytes: number) => this.onChunk(bytes) };

  /** Starts the flow from `source` (the socket this reader reads) to `sink`; `source`'s end ends `sink`. */
  pipe(source: Socket, sink: Socket): void {
    this.source = source;
    this.sink = sink;
    for (const chunk of this.held) sink.write(chunk);
    this.held = [];
    source.on('end', () => sink.end());
    source.resume();
  }

  /** Answers whether net may read again into the buffer (false stops reading until `resume`). */
  private onChunk(bytes: number): boolean {
    const chunk = this.buffer.subarray(0, bytes);
    const sink = this.sink;
    if (!sink) {
      this.held.push(Buffer.from(chunk));
      return false;
    }
    sink.write(chunk, this.onWritten);
    // Written through at once: the buffer is free. Otherwise the write still points into it.
    if (sink.writableLength === 0) return true;
    this.waiting = true;
    return false;
  }

  private readonly onWritten = (error?: Error | null) => {
    if (error || !this.waiting || (this.sink?.writableLength ?? 0) > 0) return;
    this.waiting = false;
    this.source?.resume();
  };
}

import type { Socket } from 'node:net';

/** Reads exact byte counts from a socket (for the SOCKS5 handshake), then hands back what is left. */
export class ByteReader {
  private buffered: Buffer;
  private waiting: { count: number; resolve: (bytes: Buffer) => void; reject: (error: Error) => void } | undefined;
  private ended = false;
  private readonly onData = (chunk: Buffer) => {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    this.settle();
  };
  private readonly onEnd = () => {
    this.ended = true;
    this.settle();
  };

  constructor(
    private readonly socket: Socket,
    initial: Buffer,
  ) {
    this.buffered = initial;
    socket.on('data', this.onData);
    socket.on('end', this.onEnd);
    socket.on('close', this.onEnd);
    socket.resume();
  }

  /** The next `count` bytes; rejects when the client closes first. */
  read(count: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting = { count, resolve, reject };
      this.settle();
    });
  }

  /** Stops reading (pausing the socket) and returns the bytes read past the handshake. */
  detach(): Buffer {
    this.socket.pause();
    this.socket.off('data', this.onData);
    this.socket.off('end', this.onEnd);
    this.socket.off('close', this.onEnd);
    const rest = this.buffered;
    this.buffered = Buffer.alloc(0);
    return rest;
  }

  private settle(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    if (this.buffered.length >= waiting.count) {
      this.waiting = undefined;
      const bytes = this.buffered.subarray(0, waiting.count);
      this.buffered = this.buffered.subarray(waiting.count);
      waiting.resolve(bytes);
    } else if (this.ended) {
      this.waiting = undefined;
      waiting.reject(new Error('the client closed during the handshake'));
    }
  }
}

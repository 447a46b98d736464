import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** Size of the Buffers a streamed answer is written in. */
export const CHUNK_BYTES = 256 * 1024;

/**
 * Writes text into fixed-size Buffers, handing each one over once it is full: a large answer is
 * encoded once, straight into the bytes that go to the socket, without a whole-answer string.
 * Every chunk is a fresh Buffer, so a chunk already handed over is never written again.
 */
export class ChunkWriter {
  private buf: Buffer | null = null;
  private pos = 0;
  private full: Buffer[] = [];

  constructor(private readonly size = CHUNK_BYTES) {}

  /** Appends UTF-8 text. A piece is never split across chunks (it may not end on a character). */
  text(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    if (n > this.size) {
      this.close();
      this.full.push(Buffer.from(s, 'utf8'));
      return;
    }
    const buf = this.room() >= n ? this.buf! : this.open();
    this.pos += buf.write(s, this.pos, n, 'utf8');
  }

  /** Appends text of one-byte characters (base64, ASCII), split across chunks as needed. */
  latin1(s: string): void {
    for (let from = 0; from < s.length;) {
      const buf = this.room() > 0 ? this.buf! : this.open();
      const n = Math.min(this.size - this.pos, s.length - from);
      this.pos += buf.write(n === s.length ? s : s.slice(from, from + n), this.pos, n, 'latin1');
      from += n;
    }
  }

  /** The chunks filled since the last call. */
  take(): Buffer[] {
    const out = this.full;
    this.full = [];
    return out;
  }

  /** Everything not yet taken, the last chunk partly filled. */
  end(): Buffer[] {
    this.close();
    return this.take();
  }

  private room(): number {
    return this.buf ? this.size - this.pos : 0;
  }

  /** Hands over the current chunk, if it holds anything. */
  private close(): void {
    if (this.buf && this.pos > 0)
      this.full.push(this.pos === this.size ? this.buf : this.buf.subarray(0, this.pos));
    this.buf = null;
    this.pos = 0;
  }

  private open(): Buffer {
    this.close();
    this.buf = Buffer.allocUnsafe(this.size);
    return this.buf;
  }
}

/**
 * Sends a playback answer as it is produced (chunked). The first chunk is awaited before anything is
 * sent, so that a failure at the start (the first read) is still an error envelope; a failure after
 * the first byte can only cut the connection.
 */
export async function sendWindow(reply: FastifyReply, chunks: AsyncGenerator<Buffer>): Promise<FastifyReply> {
  const first = await chunks.next();
  async function* all(): AsyncGenerator<Buffer> {
    if (!first.done) yield first.value;
    yield* chunks;
  }
  // Byte mode with a one-chunk high-water mark: at most one chunk is read ahead of the socket.
  const body = Readable.from(all(), { objectMode: false, highWaterMark: CHUNK_BYTES });
  return reply.type('application/json; charset=utf-8').send(body);
}

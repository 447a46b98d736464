/**
 * A streaming reader of Ogg pages (RFC 3533), enough to take the Opus packets out of what ffmpeg
 * writes on a pipe: a page is `OggS`, 22 bytes of header, a segment count and table, then the
 * segments; a packet is a run of segments ending in one shorter than 255 bytes, and may go on
 * into the next page. Written by hand because it is these few lines: the npm packages that read
 * Ogg either bind libogg natively or come inside larger audio frameworks (and the CLI's
 * dependencies are not ours to grow for this). Checksums are not checked: the bytes come from a
 * local pipe, not a network.
 */

const HEADER = 27;
/** A page holds at most 255 segments of 255 bytes; past that the stream is not Ogg. */
const MAX_PAGE = HEADER + 255 + 255 * 255;

export class OggReader {
  private buf: Buffer = Buffer.alloc(0);
  /** the segments of a packet that goes on into the next page */
  private pending: Buffer[] = [];

  /** Feeds bytes; returns the packets they complete, in order. Throws on a stream that is not Ogg. */
  push(chunk: Buffer): Buffer[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const packets: Buffer[] = [];
    let o = 0;
    while (this.buf.length - o >= HEADER) {
      if (this.buf.toString('latin1', o, o + 4) !== 'OggS') throw new Error('ffmpeg did not write Ogg');
      const segments = this.buf[o + 26]!;
      if (this.buf.length - o < HEADER + segments) break;
      let size = 0;
      for (let i = 0; i < segments; i++) size += this.buf[o + HEADER + i]!;
      const end = o + HEADER + segments + size;
      if (end - o > MAX_PAGE) throw new Error('an Ogg page too large: the stream is corrupt');
      if (this.buf.length < end) break;
      let p = o + HEADER + segments;
      for (let i = 0; i < segments; i++) {
        const len = this.buf[o + HEADER + i]!;
        // Why copy: the packet outlives this read, and a subarray would pin the whole pipe chunk.
        this.pending.push(Buffer.from(this.buf.subarray(p, p + len)));
        p += len;
        if (len < 255) {
          packets.push(this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending));
          this.pending = [];
        }
      }
      o = end;
    }
    this.buf = this.buf.subarray(o);
    return packets;
  }
}

/**
 * A streaming reader of IVF, the container ffmpeg writes VP8 into on a pipe: a 32-byte file
 * header, then per frame a 12-byte header (uint32 size, uint64 pts, little-endian) and the frame.
 * IVF needs no seeking and carries one encoded frame per record, which is exactly one EVC1 chunk.
 */

/** One encoded VP8 frame as ffmpeg wrote it. */
export interface IvfFrame {
  /**
   * presentation time on ffmpeg's clock, µs: the encodings of one picture, each on its own pipe,
   * carry the same one
   */
  ptsUs: number;
  key: boolean;
  data: Uint8Array;
}

const FILE_HEADER = 32;
const FRAME_HEADER = 12;
/** Far above any VP8 frame at the sizes a bot sends; past it the stream is not IVF. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export class IvfReader {
  private buf: Buffer = Buffer.alloc(0);
  /** the time base from the file header: pts × num / den seconds */
  private num = 0;
  private den = 0;

  /** Feeds bytes from the pipe; returns the frames they complete. Throws on a stream that is not VP8 IVF. */
  push(chunk: Buffer): IvfFrame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    if (this.den === 0) {
      if (this.buf.length < FILE_HEADER) return [];
      if (this.buf.toString('latin1', 0, 4) !== 'DKIF') throw new Error('ffmpeg did not write IVF');
      const fourcc = this.buf.toString('latin1', 8, 12);
      if (fourcc !== 'VP80') throw new Error(`ffmpeg wrote ${fourcc} instead of VP8`);
      const headerLength = this.buf.readUInt16LE(6) || FILE_HEADER;
      this.den = this.buf.readUInt32LE(16);
      this.num = this.buf.readUInt32LE(20);
      if (this.den === 0 || this.num === 0) throw new Error('the IVF header has no time base');
      this.buf = this.buf.subarray(headerLength);
    }
    const frames: IvfFrame[] = [];
    let o = 0;
    while (this.buf.length - o >= FRAME_HEADER) {
      const size = this.buf.readUInt32LE(o);
      if (size > MAX_FRAME_BYTES) throw new Error(`an IVF frame of ${size} bytes: the stream is corrupt`);
      if (this.buf.length - o < FRAME_HEADER + size) break;
      const pts = Number(this.buf.readBigUInt64LE(o + 4));
      // Why copy: the frame outlives this read, and a subarray would pin the whole pipe chunk.
      const data = new Uint8Array(this.buf.subarray(o + FRAME_HEADER, o + FRAME_HEADER + size));
      frames.push({
        ptsUs: Math.round(((pts * this.num) / this.den) * 1e6),
        // The VP8 frame tag's bit 0 is clear on key frames (RFC 6386, 9.1).
        key: size > 0 && (data[0]! & 1) === 0,
        data,
      });
      o += FRAME_HEADER + size;
    }
    this.buf = this.buf.subarray(o);
    return frames;
  }
}

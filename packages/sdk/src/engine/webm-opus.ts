/**
 * Opus packets out of the WebM stream a `MediaRecorder` makes (`audio/webm;codecs=opus`): the
 * microphone's path in a browser that cannot run an AudioContext (Firefox without a sound output
 * device), as MediaRecorder needs none. Why WebM, not Ogg: Firefox writes an Ogg page only when it
 * holds 4 KB, a second of sound at 32 kbit/s, where it hands over each WebM block within ~40 ms.
 * Written here rather than taken from a package: the few EBML elements read below (RFC 8794, the
 * Matroska block of RFC 9559) take 80 lines, and the demuxers on npm bring a whole container
 * library into an SDK whose size is its users' download.
 */

/** One Opus packet and how much sound it holds. */
export interface OpusPacket {
  data: Uint8Array;
  durationUs: number;
}

/** Frame length in µs of an Opus packet's configuration (TOC bits 3–7), RFC 6716 table 2. */
function frameUs(config: number): number {
  if (config < 12) return [10_000, 20_000, 40_000, 60_000][config % 4]!;
  if (config < 16) return [10_000, 20_000][config % 2]!;
  return [2_500, 5_000, 10_000, 20_000][config % 4]!;
}

/** How much sound an Opus packet holds, from its TOC byte (and frame count byte, code 3). */
export function opusDurationUs(packet: Uint8Array): number {
  if (!packet.length) return 0;
  const toc = packet[0]!;
  const code = toc & 3;
  const frames = code === 0 ? 1 : code < 3 ? 2 : (packet[1] ?? 0) & 0x3f;
  return frameUs(toc >> 3) * frames;
}

/** Master elements whose children are read: Segment, Cluster, Tracks, TrackEntry, BlockGroup. */
const MASTERS = new Set([0x18538067, 0x1f43b675, 0x1654ae6b, 0xae, 0xa0]);
const CODEC_PRIVATE = 0x63a2;
const SIMPLE_BLOCK = 0xa3;
const BLOCK = 0xa1;

/** An EBML variable-length integer at `at`: its value (`keep`: with its length marker, as IDs are) and length; null when incomplete. */
function vint(
  b: Uint8Array,
  at: number,
  keep: boolean,
): { value: number; len: number; unknown: boolean } | null {
  if (at >= b.length) return null;
  const first = b[at]!;
  let len = 1;
  while (len <= 8 && !(first & (0x80 >> (len - 1)))) len++;
  if (len > 8) throw new Error('not a WebM stream');
  if (at + len > b.length) return null;
  let value = keep ? first : first & (0xff >> len);
  let ones = value === 0xff >> len;
  for (let i = 1; i < len; i++) {
    value = value * 256 + b[at + i]!;
    ones &&= b[at + i] === 0xff;
  }
  return { value, len, unknown: !keep && ones };
}

/**
 * Reads a WebM Opus stream as it arrives, in pieces of any size: `push` returns the audio packets
 * completed so far; `head` is the OpusHead (the track's CodecPrivate, the decoder's description).
 */
export class WebmOpusReader {
  head: Uint8Array | null = null;
  private buf = new Uint8Array(0);

  push(bytes: Uint8Array): OpusPacket[] {
    const b = new Uint8Array(this.buf.length + bytes.length);
    b.set(this.buf);
    b.set(bytes, this.buf.length);
    const out: OpusPacket[] = [];
    let at = 0;
    for (;;) {
      const id = vint(b, at, true);
      const size = id && vint(b, at + id.len, false);
      if (!id || !size) break;
      const body = at + id.len + size.len;
      // A master element is entered (its size may be unknown while recording); its children follow.
      if (MASTERS.has(id.value)) {
        at = body;
        continue;
      }
      if (size.unknown) throw new Error('not a WebM stream');
      if (body + size.value > b.length) break;
      const data = b.subarray(body, body + size.value);
      if (id.value === CODEC_PRIVATE) this.head = data.slice();
      if (id.value === SIMPLE_BLOCK || id.value === BLOCK) {
        // Track number (a vint), a 16-bit relative timecode, flags; Opus blocks are not laced.
        const track = vint(data, 0, false);
        if (track) {
          const frame = data.slice(track.len + 3);
          if (frame.length) out.push({ data: frame, durationUs: opusDurationUs(frame) });
        }
      }
      at = body + size.value;
    }
    this.buf = b.slice(at);
    return out;
  }
}

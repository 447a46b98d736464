/**
 * The microphone's path where only MediaRecorder can read it (Firefox without a sound output):
 * Opus packets read out of the WebM stream as it arrives, in pieces cut anywhere.
 */
import { describe, expect, it } from 'vitest';
import { opusDurationUs, WebmOpusReader } from '../src/engine/webm-opus';

/** An EBML element: its ID bytes, a size (8-byte vint, or unknown), its body. */
function el(id: number[], body: Uint8Array | null, unknownSize = false): Uint8Array {
  const size = unknownSize
    ? [0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
    : [0x01, 0, 0, 0, 0, 0, (body!.length >> 8) & 0xff, body!.length & 0xff];
  return cat(new Uint8Array(id), new Uint8Array(size), body ?? new Uint8Array(0));
}
function cat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
const HEAD = new Uint8Array([...Buffer.from('OpusHead'), 1, 1, 0x38, 1, 0x80, 0xbb, 0, 0, 0, 0, 0]);
/** An Opus packet: config 15 is hybrid 20 ms, code 0 (one frame); its bytes numbered `n`. */
const packet = (n: number, toc = 0x78) => new Uint8Array([toc, n, n, n]);
/** A SimpleBlock of track 1 (vint 0x81), relative timecode `t`, key flag. */
const block = (p: Uint8Array, t: number) => el([0xa3], cat(new Uint8Array([0x81, 0, t, 0x80]), p));

/** A stream as Firefox's MediaRecorder writes it while recording: unknown sizes for Segment and Cluster. */
function stream(packets: Uint8Array[]): Uint8Array {
  const ebml = el([0x1a, 0x45, 0xdf, 0xa3], el([0x42, 0x82], new Uint8Array([...Buffer.from('webm')])));
  const info = el([0x15, 0x49, 0xa9, 0x66], el([0x2a, 0xd7, 0xb1], new Uint8Array([0x0f, 0x42, 0x40])));
  const tracks = el(
    [0x16, 0x54, 0xae, 0x6b],
    el(
      [0xae],
      cat(
        el([0xd7], new Uint8Array([1])),
        el([0x86], new Uint8Array([...Buffer.from('A_OPUS')])),
        el([0x63, 0xa2], HEAD),
      ),
    ),
  );
  const cluster = cat(
    el([0x1f, 0x43, 0xb6, 0x75], null, true),
    el([0xe7], new Uint8Array([0])),
    ...packets.map((p, i) => block(p, i * 20)),
  );
  return cat(ebml, el([0x18, 0x53, 0x80, 0x67], null, true), info, tracks, cluster);
}

describe('WebmOpusReader', () => {
  it('reads the OpusHead and every packet, however the stream is cut', () => {
    const packets = [1, 2, 3, 4, 5].map((n) => packet(n));
    const bytes = stream(packets);
    for (const piece of [1, 7, 40, bytes.length]) {
      const reader = new WebmOpusReader();
      const got = [];
      for (let at = 0; at < bytes.length; at += piece)
        got.push(...reader.push(bytes.subarray(at, at + piece)));
      expect(reader.head).toEqual(HEAD);
      expect(got.map((p) => [...p.data])).toEqual(packets.map((p) => [...p]));
      expect(got.every((p) => p.durationUs === 20_000)).toBe(true);
    }
  });

  it('gives nothing of a block until all of it has come', () => {
    const bytes = stream([packet(9)]);
    const reader = new WebmOpusReader();
    expect(reader.push(bytes.subarray(0, bytes.length - 1))).toEqual([]);
    expect(reader.push(bytes.subarray(bytes.length - 1)).map((p) => [...p.data])).toEqual([[0x78, 9, 9, 9]]);
  });

  it('refuses what is not WebM', () => {
    expect(() => new WebmOpusReader().push(new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 1]))).toThrow(
      /not a WebM/,
    );
  });
});

describe('opusDurationUs', () => {
  it('reads the frame length and count from the TOC byte (RFC 6716 §3.1)', () => {
    expect(opusDurationUs(new Uint8Array([0x78]))).toBe(20_000); // hybrid 20 ms, one frame
    expect(opusDurationUs(new Uint8Array([0xf8]))).toBe(20_000); // CELT 20 ms
    expect(opusDurationUs(new Uint8Array([0xe0]))).toBe(2_500); // CELT 2.5 ms
    expect(opusDurationUs(new Uint8Array([0x79]))).toBe(40_000); // two frames of 20 ms
    expect(opusDurationUs(new Uint8Array([0x18]))).toBe(60_000); // SILK 60 ms, one frame
    expect(opusDurationUs(new Uint8Array([0x1b, 0x03]))).toBe(60_000 * 3); // three of them (code 3)
    expect(opusDurationUs(new Uint8Array(0))).toBe(0);
  });
});

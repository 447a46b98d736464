import { describe, expect, it } from 'vitest';
import {
  pictureSize,
  BINARY_MESSAGE,
  BINARY_PUBLISH,
  decodeBinaryFrame,
  decodeEvc1,
  encodeBinaryFrame,
  encodeEvc1,
  fromBase64,
  isEvc1,
  isJpeg,
  mediaProblem,
  parseMediaStream,
  toBase64,
} from '../src/index.js';

const bytes = (...b: number[]) => new Uint8Array(b);
const utf8 = new TextEncoder();
/** The smallest thing isJpeg accepts: SOI marker, then anything. */
const JPEG = bytes(0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46);

describe('binary frames', () => {
  it('round-trips a publish frame with an id', () => {
    const payload = bytes(1, 2, 3, 250);
    const enc = encodeBinaryFrame({
      kind: BINARY_PUBLISH,
      streamType: 'media/u1/cam',
      timestampMs: 1_700_000_000_123,
      id: 'abc-1',
      payload,
    });
    expect(enc[0]).toBe(0x56);
    expect(enc[1]).toBe(BINARY_PUBLISH);
    const dec = decodeBinaryFrame(enc);
    expect(dec).toEqual({
      kind: BINARY_PUBLISH,
      streamType: 'media/u1/cam',
      timestampMs: 1_700_000_000_123,
      id: 'abc-1',
      payload,
    });
  });

  it('round-trips a publish frame without an id (no ack wanted)', () => {
    const enc = encodeBinaryFrame({
      kind: BINARY_PUBLISH,
      streamType: 'chat',
      timestampMs: 5,
      payload: bytes(9),
    });
    const dec = decodeBinaryFrame(enc);
    expect(dec.id).toBeUndefined();
    expect('id' in dec).toBe(false);
    expect(dec).toMatchObject({ kind: BINARY_PUBLISH, streamType: 'chat', timestampMs: 5 });
    expect([...dec.payload]).toEqual([9]);
  });

  it('round-trips a message frame with its seq, and an empty payload', () => {
    const enc = encodeBinaryFrame({
      kind: BINARY_MESSAGE,
      streamType: 'media/ü/mic',
      timestampMs: 42,
      seq: 2 ** 40 + 7,
      payload: new Uint8Array(0),
    });
    const dec = decodeBinaryFrame(enc);
    expect(dec).toMatchObject({
      kind: BINARY_MESSAGE,
      streamType: 'media/ü/mic',
      timestampMs: 42,
      seq: 2 ** 40 + 7,
    });
    expect(dec.payload.length).toBe(0);
  });

  it('decodes from a subarray of a larger buffer (byteOffset honoured)', () => {
    const enc = encodeBinaryFrame({
      kind: BINARY_MESSAGE,
      streamType: 'x',
      timestampMs: 1,
      seq: 3,
      payload: bytes(7, 8),
    });
    const big = new Uint8Array(enc.length + 10);
    big.set(enc, 5);
    const dec = decodeBinaryFrame(big.subarray(5, 5 + enc.length));
    expect(dec).toMatchObject({ streamType: 'x', seq: 3 });
    expect([...dec.payload]).toEqual([7, 8]);
  });

  it('accepts a 255-byte stream type and refuses 256 bytes', () => {
    const ok = 'a'.repeat(255);
    const dec = decodeBinaryFrame(
      encodeBinaryFrame({ kind: BINARY_PUBLISH, streamType: ok, timestampMs: 0, payload: bytes(1) }),
    );
    expect(dec.streamType).toBe(ok);
    expect(() =>
      encodeBinaryFrame({
        kind: BINARY_PUBLISH,
        streamType: 'a'.repeat(256),
        timestampMs: 0,
        payload: bytes(1),
      }),
    ).toThrow(RangeError);
    // multi-byte characters count in bytes, not characters
    expect(() =>
      encodeBinaryFrame({
        kind: BINARY_PUBLISH,
        streamType: 'é'.repeat(128),
        timestampMs: 0,
        payload: bytes(),
      }),
    ).toThrow(RangeError);
  });

  it('refuses an id longer than 255 bytes', () => {
    expect(() =>
      encodeBinaryFrame({
        kind: BINARY_PUBLISH,
        streamType: 's',
        timestampMs: 0,
        id: 'i'.repeat(256),
        payload: bytes(),
      }),
    ).toThrow(RangeError);
  });

  it('throws RangeError on every truncation of a valid frame', () => {
    const pub = encodeBinaryFrame({
      kind: BINARY_PUBLISH,
      streamType: 'media/u/cam',
      timestampMs: 1,
      id: 'id',
      payload: bytes(),
    });
    const msg = encodeBinaryFrame({
      kind: BINARY_MESSAGE,
      streamType: 'media/u/cam',
      timestampMs: 1,
      seq: 1,
      payload: bytes(),
    });
    for (const frame of [pub, msg]) {
      // with an empty payload, every strict prefix is missing a header byte
      for (let n = 0; n < frame.length; n++)
        expect(() => decodeBinaryFrame(frame.subarray(0, n))).toThrow(RangeError);
      expect(() => decodeBinaryFrame(frame)).not.toThrow();
    }
  });

  it('throws RangeError on garbage', () => {
    expect(() => decodeBinaryFrame(new Uint8Array(0))).toThrow(RangeError);
    expect(() => decodeBinaryFrame(utf8.encode('{"type":"publish"}'))).toThrow(RangeError); // wrong magic
    const wrongKind = encodeBinaryFrame({
      kind: BINARY_MESSAGE,
      streamType: 's',
      timestampMs: 0,
      seq: 0,
      payload: bytes(),
    });
    wrongKind[1] = 9;
    expect(() => decodeBinaryFrame(wrongKind)).toThrow(/unknown binary frame kind 9/);
    // a stream-type length pointing past the end
    const longLen = encodeBinaryFrame({
      kind: BINARY_PUBLISH,
      streamType: 'abc',
      timestampMs: 0,
      payload: bytes(1, 2, 3, 4, 5, 6, 7, 8),
    });
    longLen[2] = 200;
    expect(() => decodeBinaryFrame(longLen)).toThrow(RangeError);
    // an id length pointing past the end
    const idLen = encodeBinaryFrame({
      kind: BINARY_PUBLISH,
      streamType: 'abc',
      timestampMs: 0,
      payload: bytes(),
    });
    idLen[idLen.length - 1] = 50;
    expect(() => decodeBinaryFrame(idLen)).toThrow(RangeError);
  });
});

describe('EVC1', () => {
  it('round-trips a vp8 key frame', () => {
    const data = bytes(0x9d, 0x01, 0x2a, 1, 2, 3);
    const enc = encodeEvc1({
      key: true,
      codec: 'vp8',
      timestampUs: 1_234_567,
      durationUs: 33_333,
      description: bytes(),
      data,
    });
    expect(isEvc1(enc)).toBe(true);
    expect(decodeEvc1(enc)).toEqual({
      version: 1,
      key: true,
      codec: 'vp8',
      timestampUs: 1_234_567,
      durationUs: 33_333,
      description: new Uint8Array(0),
      data,
    });
  });

  it('round-trips avc1 with an avcC description (delta frame)', () => {
    const avcC = bytes(1, 0x42, 0xc0, 0x1e, 0xff, 0xe1, 0, 4, 0x67, 0x42, 0xc0, 0x1e);
    const data = bytes(0, 0, 0, 2, 0x41, 0x9a);
    const enc = encodeEvc1({
      key: false,
      codec: 'avc1.42c01e',
      timestampUs: 2 ** 40,
      durationUs: 40_000,
      description: avcC,
      data,
    });
    const dec = decodeEvc1(enc);
    expect(dec).toMatchObject({ key: false, codec: 'avc1.42c01e', timestampUs: 2 ** 40, durationUs: 40_000 });
    expect([...dec.description]).toEqual([...avcC]);
    expect([...dec.data]).toEqual([...data]);
  });

  it('round-trips pcm-s16 with a JSON description', () => {
    const desc = utf8.encode(JSON.stringify({ sampleRate: 48000, numberOfChannels: 2 }));
    const pcm = new Uint8Array(new Int16Array([0, 1000, -1000, 32767]).buffer);
    const enc = encodeEvc1({
      key: true,
      codec: 'pcm-s16',
      timestampUs: 0,
      durationUs: 20_000,
      description: desc,
      data: pcm,
      version: 1,
    });
    const dec = decodeEvc1(enc);
    expect(dec.codec).toBe('pcm-s16');
    expect(JSON.parse(new TextDecoder().decode(dec.description))).toEqual({
      sampleRate: 48000,
      numberOfChannels: 2,
    });
    expect([...dec.data]).toEqual([...pcm]);
  });

  it('throws RangeError when truncated or not EVC1', () => {
    const desc = utf8.encode('{"sampleRate":48000,"numberOfChannels":1}');
    const enc = encodeEvc1({
      key: true,
      codec: 'pcm-s16',
      timestampUs: 0,
      durationUs: 0,
      description: desc,
      data: bytes(),
    });
    // every prefix that cuts into the header or the description
    for (let n = 0; n < enc.length; n++) expect(() => decodeEvc1(enc.subarray(0, n))).toThrow(RangeError);
    expect(() => decodeEvc1(JPEG)).toThrow(RangeError);
    expect(() => decodeEvc1(utf8.encode('EVC'))).toThrow(RangeError);
  });
});

describe('mediaProblem', () => {
  const evc1 = (codec: string, description = bytes()) =>
    encodeEvc1({ key: true, codec, timestampUs: 0, durationUs: 20_000, description, data: bytes(1, 2, 3) });

  it('accepts JPEG on cam and screen, refuses it on mic', () => {
    expect(isJpeg(JPEG)).toBe(true);
    expect(mediaProblem('cam', JPEG)).toBeNull();
    expect(mediaProblem('screen', JPEG)).toBeNull();
    expect(mediaProblem('mic', JPEG)).toMatch(/mic/);
  });

  it('accepts EVC1 opus on mic, refuses it on cam', () => {
    expect(mediaProblem('mic', evc1('opus'))).toBeNull();
    expect(
      mediaProblem('mic', evc1('pcm-s16', utf8.encode('{"sampleRate":16000,"numberOfChannels":1}'))),
    ).toBeNull();
    expect(mediaProblem('cam', evc1('opus'))).toMatch(/opus.*cam/);
  });

  it('accepts EVC1 video codecs on cam and screen, refuses them on mic', () => {
    expect(mediaProblem('cam', evc1('vp09.00.10.08'))).toBeNull();
    expect(mediaProblem('cam', evc1('vp8'))).toBeNull();
    expect(mediaProblem('screen', evc1('avc1.42001f'))).toBeNull();
    expect(mediaProblem('mic', evc1('vp8'))).toMatch(/vp8/);
    expect(mediaProblem('cam', evc1('av01.0.04M.08'))).toMatch(/av01/);
  });

  it('refuses garbage and truncated EVC1', () => {
    expect(mediaProblem('cam', utf8.encode('hello world'))).toMatch(/neither JPEG nor EVC1/);
    expect(mediaProblem('mic', utf8.encode('hello world'))).toMatch(/EVC1 audio/);
    expect(mediaProblem('cam', bytes())).not.toBeNull();
    const full = evc1('vp8');
    expect(mediaProblem('cam', full.subarray(0, 10))).toMatch(/truncated/);
  });
});

describe('parseMediaStream', () => {
  it('splits media/<user>/<kind>', () => {
    expect(parseMediaStream('media/u1/cam')).toEqual({ userId: 'u1', kind: 'cam' });
    expect(parseMediaStream('media/user-42/mic')).toEqual({ userId: 'user-42', kind: 'mic' });
    expect(parseMediaStream('media/u1/screen')).toEqual({ userId: 'u1', kind: 'screen' });
  });

  it('returns null for other streams', () => {
    for (const s of [
      'chat',
      'director',
      'media/u1',
      'media//cam',
      'media/u1/video',
      'xmedia/u1/cam',
      'media/u1/cam/',
    ])
      expect(parseMediaStream(s), s).toBeNull();
  });
});

describe('base64', () => {
  it('round-trips 1 MiB of every byte value', () => {
    const big = new Uint8Array(1 << 20);
    for (let i = 0; i < big.length; i++) big[i] = (i * 131 + (i >> 8)) & 0xff;
    const text = toBase64(big);
    expect(text.length).toBe(Math.ceil(big.length / 3) * 4);
    const back = fromBase64(text);
    expect(back.length).toBe(big.length);
    expect(Buffer.compare(Buffer.from(back), Buffer.from(big))).toBe(0);
  });

  it('encodes a subarray, not its whole buffer', () => {
    const buf = bytes(0, 1, 2, 3, 4, 5);
    expect(toBase64(buf.subarray(2, 5))).toBe(Buffer.from([2, 3, 4]).toString('base64'));
    expect([...fromBase64(toBase64(bytes()))]).toEqual([]);
  });

  it('matches the browser path (btoa/atob) when Buffer is absent', () => {
    const data = new Uint8Array(100_000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7) & 0xff;
    const expected = Buffer.from(data).toString('base64');
    const saved = globalThis.Buffer;
    try {
      (globalThis as { Buffer?: unknown }).Buffer = undefined;
      expect(toBase64(data)).toBe(expected);
      expect([...fromBase64(expected)].every((b, i) => b === data[i])).toBe(true);
    } finally {
      globalThis.Buffer = saved;
    }
  });
});

describe('pictureSize', () => {
  it('reads a VP8 key frame in EVC1 and a JPEG, and knows nothing of a delta frame', () => {
    const vp8 = (key: boolean) => {
      const data = new Uint8Array(20);
      data[0] = key ? 0x10 : 0x11;
      data.set([0x9d, 0x01, 0x2a, 0x80, 0x02, 0x68, 0x01], 3); // 640x360
      return encodeEvc1({
        key,
        codec: 'vp8',
        timestampUs: 0,
        durationUs: 0,
        description: new Uint8Array(0),
        data,
      });
    };
    expect(pictureSize(vp8(true))).toEqual({ width: 640, height: 360 });
    expect(pictureSize(vp8(false))).toBeNull();
    const jpeg = new Uint8Array([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0, 0, 0xff, 0xc0, 0x00, 0x11, 8, 0x02, 0xd0, 0x05, 0x00, 3, 0, 0,
    ]);
    expect(pictureSize(jpeg)).toEqual({ width: 1280, height: 720 });
    expect(pictureSize(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]))).toBeNull();
  });
});

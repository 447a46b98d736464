/**
 * A minimal streaming Matroska writer: one track per file, each frame in its own cluster, so
 * nothing is buffered and every frame keeps its exact timestamp. ffmpeg demuxes it from a pipe
 * (the Segment has unknown size; there are no cues, nothing needs seeking).
 *
 * Element ids and layout follow the Matroska specification (RFC 9559).
 */

/** Timestamps are written in microseconds (TimestampScale 1000 ns). */
export const MKV_TIMESCALE_NS = 1000;

/** What ffmpeg needs to know about the single track of a file. */
export interface MkvTrack {
  type: 'video' | 'audio';
  /** Matroska codec id: V_MJPEG, V_VP8, V_VP9, V_MPEG4/ISO/AVC, A_OPUS, A_PCM/INT/LIT */
  codecId: string;
  codecPrivate?: Uint8Array;
  /** video: frame size, when known from the first frame */
  width?: number;
  height?: number;
  /** audio */
  sampleRate?: number;
  channels?: number;
  bitDepth?: number;
}

const ID = {
  EBML: 0x1a45dfa3,
  EBMLVersion: 0x4286,
  EBMLReadVersion: 0x42f7,
  EBMLMaxIDLength: 0x42f2,
  EBMLMaxSizeLength: 0x42f3,
  DocType: 0x4282,
  DocTypeVersion: 0x4287,
  DocTypeReadVersion: 0x4285,
  Segment: 0x18538067,
  Info: 0x1549a966,
  TimestampScale: 0x2ad7b1,
  MuxingApp: 0x4d80,
  WritingApp: 0x5741,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackNumber: 0xd7,
  TrackUID: 0x73c5,
  TrackType: 0x83,
  FlagLacing: 0x9c,
  CodecID: 0x86,
  CodecPrivate: 0x63a2,
  Video: 0xe0,
  PixelWidth: 0xb0,
  PixelHeight: 0xba,
  Audio: 0xe1,
  SamplingFrequency: 0xb5,
  Channels: 0x9f,
  BitDepth: 0x6264,
  Cluster: 0x1f43b675,
  Timestamp: 0xe7,
  SimpleBlock: 0xa3,
} as const;

function idBytes(id: number): Buffer {
  const len = id > 0xffffff ? 4 : id > 0xffff ? 3 : id > 0xff ? 2 : 1;
  const b = Buffer.alloc(len);
  b.writeUIntBE(id, 0, len);
  return b;
}

/** An element size as an 8-byte EBML variable-length integer (simple, and enough for any size). */
function size8(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(Math.floor(n / 0x100000000) & 0x00ffffff, 0);
  b.writeUInt32BE(n >>> 0, 4);
  b[0] = 0x01;
  return b;
}

function element(id: number, payload: Buffer): Buffer {
  return Buffer.concat([idBytes(id), size8(payload.length), payload]);
}

function uint(id: number, value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(value));
  let i = 0;
  while (i < 7 && b[i] === 0) i++;
  return element(id, b.subarray(i));
}

function str(id: number, value: string): Buffer {
  return element(id, Buffer.from(value, 'utf8'));
}

function float(id: number, value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(value);
  return element(id, b);
}

/** The EBML header, an unknown-size Segment, Info and Tracks: everything before the first frame. */
export function mkvHeader(track: MkvTrack): Buffer {
  const ebml = element(
    ID.EBML,
    Buffer.concat([
      uint(ID.EBMLVersion, 1),
      uint(ID.EBMLReadVersion, 1),
      uint(ID.EBMLMaxIDLength, 4),
      uint(ID.EBMLMaxSizeLength, 8),
      str(ID.DocType, 'matroska'),
      uint(ID.DocTypeVersion, 4),
      uint(ID.DocTypeReadVersion, 2),
    ]),
  );
  const info = element(
    ID.Info,
    Buffer.concat([
      uint(ID.TimestampScale, MKV_TIMESCALE_NS),
      str(ID.MuxingApp, 'vss'),
      str(ID.WritingApp, 'vss'),
    ]),
  );
  const parts = [
    uint(ID.TrackNumber, 1),
    uint(ID.TrackUID, 1),
    uint(ID.TrackType, track.type === 'video' ? 1 : 2),
    uint(ID.FlagLacing, 0),
    str(ID.CodecID, track.codecId),
  ];
  if (track.codecPrivate && track.codecPrivate.length > 0)
    parts.push(element(ID.CodecPrivate, Buffer.from(track.codecPrivate)));
  if (track.type === 'video' && track.width && track.height)
    parts.push(
      element(
        ID.Video,
        Buffer.concat([uint(ID.PixelWidth, track.width), uint(ID.PixelHeight, track.height)]),
      ),
    );
  if (track.type === 'audio') {
    const audio = [
      float(ID.SamplingFrequency, track.sampleRate ?? 48_000),
      uint(ID.Channels, track.channels ?? 1),
    ];
    if (track.bitDepth) audio.push(uint(ID.BitDepth, track.bitDepth));
    parts.push(element(ID.Audio, Buffer.concat(audio)));
  }
  const tracks = element(ID.Tracks, element(ID.TrackEntry, Buffer.concat(parts)));
  // Unknown size (all ones): the segment runs to the end of the stream.
  const segment = Buffer.concat([
    idBytes(ID.Segment),
    Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
  ]);
  return Buffer.concat([ebml, segment, info, tracks]);
}

/** Bytes of the Cluster, Timestamp and SimpleBlock headers that precede each frame. */
export const MKV_FRAME_HEADER_BYTES = 35;

/**
 * The bytes that precede one frame: a Cluster holding its Timestamp and one SimpleBlock whose data
 * (the frame itself) follows. Written separately so that the frame is never copied; fixed-size
 * fields (8-byte sizes and timestamp), so it is one small buffer filled in place.
 */
export function mkvFrameHeader(timestampUs: number, key: boolean, frameBytes: number): Buffer {
  const b = Buffer.allocUnsafe(MKV_FRAME_HEADER_BYTES);
  b.writeUInt32BE(ID.Cluster, 0);
  writeSize8(b, 4, 10 + 1 + 8 + 4 + frameBytes);
  b[12] = ID.Timestamp;
  b[13] = 0x88; // size 8
  b.writeBigUInt64BE(BigInt(Math.max(0, Math.round(timestampUs))), 14);
  b[22] = ID.SimpleBlock;
  writeSize8(b, 23, 4 + frameBytes);
  // SimpleBlock: track number (vint 1), int16 timestamp relative to the cluster, flags.
  b[31] = 0x81;
  b[32] = 0;
  b[33] = 0;
  b[34] = key ? 0x80 : 0x00;
  return b;
}

function writeSize8(b: Buffer, at: number, n: number): void {
  b.writeUInt32BE(Math.floor(n / 0x100000000) & 0x00ffffff, at);
  b.writeUInt32BE(n >>> 0, at + 4);
  b[at] = 0x01;
}

import { decodeEvc1, isEvc1, isJpeg, type TrackKind } from '@vss/client';
import type { MkvTrack } from './matroska.js';

/** How a recorded track is framed for ffmpeg, decided from its first usable payload. */
export interface TrackFormat {
  /** `mjpeg`, or the EVC1 codec string (`vp8`, `vp09.…`, `avc1.…`, `opus`, `pcm-s16`) */
  codec: string;
  evc1: boolean;
  mkv: MkvTrack;
}

/** One frame ready for the Matroska writer: its time on the export's clock, and its bytes. */
export interface Frame {
  /** µs since the export's epoch */
  atUs: number;
  key: boolean;
  data: Uint8Array;
}

/** An EVC1 timestamp further than this from the recorded time means the encoder restarted. */
const REANCHOR_US = 2_000_000;

/** Why a track cannot be rendered. */
export class MediaError extends Error {}

function opusHead(channels: number): Uint8Array {
  const b = Buffer.alloc(19);
  b.write('OpusHead', 0, 'ascii');
  b[8] = 1; // version
  b[9] = channels;
  b.writeUInt16LE(0, 10); // pre-skip
  b.writeUInt32LE(48_000, 12); // input sample rate (informational)
  b.writeInt16LE(0, 16); // output gain
  b[18] = 0; // channel mapping family 0: mono or stereo
  return b;
}

/** The pcm-s16 decoder description: JSON `{ sampleRate, numberOfChannels }`. */
function pcmDescription(streamId: string, description: Uint8Array): { sampleRate: number; channels: number } {
  let parsed: { sampleRate?: unknown; numberOfChannels?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(description).toString('utf8')) as typeof parsed;
  } catch {
    throw new MediaError(
      `${streamId}: the pcm-s16 description must be JSON { "sampleRate", "numberOfChannels" }`,
    );
  }
  const { sampleRate, numberOfChannels } = parsed;
  if (
    typeof sampleRate !== 'number' ||
    !Number.isInteger(sampleRate) ||
    sampleRate < 8000 ||
    sampleRate > 192_000
  )
    throw new MediaError(`${streamId}: pcm-s16 sampleRate must be an integer from 8000 to 192000`);
  if (
    typeof numberOfChannels !== 'number' ||
    !Number.isInteger(numberOfChannels) ||
    numberOfChannels < 1 ||
    numberOfChannels > 8
  )
    throw new MediaError(`${streamId}: pcm-s16 numberOfChannels must be an integer from 1 to 8`);
  return { sampleRate, channels: numberOfChannels };
}

/**
 * The format of a track from its first payload that can start it (a JPEG, an EVC1 key frame, or
 * any audio chunk); undefined while none has come. Throws MediaError for a payload that claims a
 * codec but cannot be framed (a pcm-s16 chunk without a usable description).
 */
export function formatOf(streamId: string, kind: TrackKind, payload: Uint8Array): TrackFormat | undefined {
  if (kind !== 'mic' && isJpeg(payload))
    return { codec: 'mjpeg', evc1: false, mkv: { type: 'video', codecId: 'V_MJPEG' } };
  if (!isEvc1(payload)) return undefined;
  let chunk;
  try {
    chunk = decodeEvc1(payload);
  } catch {
    return undefined;
  }
  const { codec, description } = chunk;
  if (kind === 'mic') {
    if (codec === 'opus') {
      const head = Buffer.from(description);
      const given = head.length >= 19 && head.subarray(0, 8).toString('ascii') === 'OpusHead';
      // TOC byte, bit 2: stereo.
      const channels = chunk.data.length > 0 && (chunk.data[0]! & 0x04) !== 0 ? 2 : 1;
      return {
        codec,
        evc1: true,
        mkv: {
          type: 'audio',
          codecId: 'A_OPUS',
          codecPrivate: given ? head : opusHead(channels),
          sampleRate: 48_000,
          channels: given ? head[9]! : channels,
        },
      };
    }
    if (codec === 'pcm-s16') {
      const { sampleRate, channels } = pcmDescription(streamId, description);
      return {
        codec,
        evc1: true,
        mkv: { type: 'audio', codecId: 'A_PCM/INT/LIT', sampleRate, channels, bitDepth: 16 },
      };
    }
    return undefined;
  }
  if (!chunk.key) return undefined;
  if (codec === 'vp8') return { codec, evc1: true, mkv: { type: 'video', codecId: 'V_VP8' } };
  if (codec.startsWith('vp09.')) return { codec, evc1: true, mkv: { type: 'video', codecId: 'V_VP9' } };
  if (codec.startsWith('avc1.'))
    // With an avcC description the chunks are length-prefixed (AVCC); without one, Annex B,
    // which ffmpeg's H.264 decoder also reads when the track has no codec private data.
    return {
      codec,
      evc1: true,
      mkv: { type: 'video', codecId: 'V_MPEG4/ISO/AVC', codecPrivate: description },
    };
  return undefined;
}

/**
 * Turns a track's recorded payloads into frames on the export's clock, in recorded order.
 * MJPEG frames sit at their recorded time. EVC1 chunks carry the encoder's own timestamps: a track
 * is anchored at the recorded time of its first chunk and follows the encoder's clock from there
 * (sample-accurate audio, presentation order for video with B-frames), re-anchoring when the two
 * drift apart by more than 2 s (an encoder restarted after the camera was turned off and on).
 * Payloads of another codec than the track's, and video before its first key frame, are skipped.
 * The same input always gives the same frames: the scan and the render pass both use this.
 */
export class TrackFramer {
  private anchorUs: number | undefined;
  private anchorChunkUs = 0;
  private started = false;

  constructor(
    private readonly format: TrackFormat,
    private readonly epochMs: number,
  ) {}

  frame(recordedMs: number, payload: Uint8Array): Frame | undefined {
    const recordedUs = (recordedMs - this.epochMs) * 1000;
    if (!this.format.evc1) {
      if (!isJpeg(payload)) return undefined;
      return { atUs: recordedUs, key: true, data: payload };
    }
    if (!isEvc1(payload)) return undefined;
    let chunk;
    try {
      chunk = decodeEvc1(payload);
    } catch {
      return undefined;
    }
    if (chunk.codec !== this.format.codec) return undefined;
    const video = this.format.mkv.type === 'video';
    if (video && !this.started && !chunk.key) return undefined;
    this.started = true;
    if (
      this.anchorUs === undefined ||
      Math.abs(this.anchorUs + (chunk.timestampUs - this.anchorChunkUs) - recordedUs) > REANCHOR_US
    ) {
      this.anchorUs = recordedUs;
      this.anchorChunkUs = chunk.timestampUs;
    }
    const atUs = Math.max(0, this.anchorUs + (chunk.timestampUs - this.anchorChunkUs));
    return { atUs, key: video ? chunk.key : true, data: chunk.data };
  }
}

import { decodeEvc1, isEvc1, isJpeg, type TrackKind } from '@vss/protocol';
import type { MkvTrack } from './matroska.js';

/** How a recorded track is framed for ffmpeg, decided from its first usable payload. */
export interface TrackFormat {
  /** `mjpeg`, or the EVC1 codec string (`vp8`, `vp09.…`, `avc1.…`, `opus`, `pcm-s16`) */
  codec: string;
  evc1: boolean;
  mkv: MkvTrack;
}

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

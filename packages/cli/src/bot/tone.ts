/**
 * The bots' microphone: a sine tone as EVC1 pcm-s16, 48 kHz mono, in 20 ms frames, the framing a
 * browser's audio encoder uses. PCM needs no encoder; a bot costs a few bytes of copying per frame.
 */
import { encodeEvc1 } from '@vss/protocol';

export const SAMPLE_RATE = 48_000;
export const FRAME_MS = 20;
const SAMPLES = (SAMPLE_RATE * FRAME_MS) / 1000;
/** -12 dBFS or so: audible in a demo, far from clipping when a player mixes several bots. */
const AMPLITUDE = 8000;

/** The pcm-s16 decoder description (JSON, as WebCodecs-based publishers send it). */
const DESCRIPTION = new TextEncoder().encode(
  JSON.stringify({ sampleRate: SAMPLE_RATE, numberOfChannels: 1 }),
);

/**
 * The pitch of bot number `n` (1-based): 300, 350, … 750 Hz, then again. Multiples of 50 Hz fit a
 * whole number of periods into 20 ms, so every frame of a bot is the same samples and one frame is
 * computed once; distinct pitches tell the bots apart by ear.
 */
export function pitchOf(n: number): number {
  return 300 + 50 * ((n - 1) % 10);
}

/** One 20 ms frame of a tone whose period divides 20 ms: little-endian int16 samples. */
export function toneSamples(frequency: number): Uint8Array {
  const view = new DataView(new ArrayBuffer(SAMPLES * 2));
  for (let i = 0; i < SAMPLES; i++)
    view.setInt16(i * 2, Math.round(Math.sin((2 * Math.PI * frequency * i) / SAMPLE_RATE) * AMPLITUDE), true);
  return new Uint8Array(view.buffer);
}

/** The EVC1 chunk of audio frame number `index` (its time is index × 20 ms on the bot's clock). */
export function toneChunk(samples: Uint8Array, index: number): Uint8Array {
  return encodeEvc1({
    key: true,
    codec: 'pcm-s16',
    timestampUs: index * FRAME_MS * 1000,
    durationUs: FRAME_MS * 1000,
    description: DESCRIPTION,
    data: samples,
  });
}

/**
 * The local camera, microphone and screen as they are published on one connection: their
 * encoders, wired to LiveClient, the shared rate budget and the uplink's steps (uplink.ts).
 */
import { LiveError, type LiveClient } from '@vss/client';
import { LIVE_ERRORS, type Layer, type TrackKind } from '@vss/protocol';
import { AudioPublisher } from './audio-publisher';
import type { RateBudget } from './rate-budget';
import type { Uplink, UplinkStep } from './uplink';
import { PROFILES, VideoPublisher } from './video-publisher';

/** Queued bytes on the socket past which video frames are skipped (docs/protocol.md §6). */
const VIDEO_QUEUE_BYTES = 256 * 1024;
/** The same for audio: small chunks that matter more, so a longer queue is tolerated. */
const AUDIO_QUEUE_BYTES = 1024 * 1024;
const OPEN = 1;

/** One published track. */
export interface Publishing {
  track: MediaStreamTrack;
  stop(): void;
  /** a key frame on `layer` (every layer when absent) as soon as possible; nothing for sound */
  requestKeyFrame(layer?: Layer): void;
  /** how much to send now (video only) */
  setStep(step: UplinkStep): void;
}

/** What a publisher needs from its room. */
export interface PublishingDeps {
  client: LiveClient;
  userId: string;
  budget: RateBudget;
  uplink: Uplink;
  /** frames keep failing to encode, or (`final`) the device cannot be read in this browser */
  failed(err: unknown, final?: boolean): void;
  /** what this room publishes with */
  media: MediaChoices;
  /** the server refused a frame (e.g. REDACTED): what to tell the person */
  refused(message: string): void;
}

/** How a room publishes: chosen by the app, or for the browser. */
export interface MediaChoices {
  /** the video codec to publish; absent: chosen for this browser (video-publisher.ts) */
  videoCodec?: 'vp8' | 'h264';
  /** where the SDK's own modules are served (the microphone's AudioWorklet): `<server>/sdk/` */
  sdkBase: string;
}

/** Client-side codes of a send that did not reach the server: nothing to tell about them. */
const NOT_REFUSALS = new Set<string>(['CLOSED', 'NOT_CONNECTED', LIVE_ERRORS.UNAVAILABLE]);

/** Starts encoding and publishing `track` as `media/<userId>/<kind>`. */
export async function startPublishing(
  kind: TrackKind,
  track: MediaStreamTrack,
  deps: PublishingDeps,
): Promise<Publishing> {
  const { client, budget, uplink } = deps;
  const stream = `media/${deps.userId}/${kind}`;
  const ready = (max: number, use: 'video' | 'audio') =>
    client.readyState === OPEN && client.bufferedAmount < max && budget.take(use);
  /**
   * Waits for an acked publish's answer, timing it for the uplink (the ack, or a refusal, says the
   * server has read it); tells the person of a refusal. Call right after `client.publish`, so that
   * the bytes counted include this one.
   */
  const timed = async (acked: Promise<number>): Promise<boolean> => {
    const answered = uplink.sent();
    try {
      await acked;
      answered();
      return true;
    } catch (err) {
      const code = err instanceof LiveError ? err.code : '';
      answered(code !== 'CLOSED' && code !== 'NOT_CONNECTED');
      if (err instanceof LiveError && !NOT_REFUSALS.has(code)) deps.refused(err.message);
      return false;
    }
  };
  if (kind === 'mic') {
    const send = (payload: Uint8Array, timestampMs: number) => {
      // Now and then a sound chunk times the link (uplink.ts): sound flows whatever the camera does.
      if (uplink.probeDue()) return timed(client.publish(stream, payload, { timestampMs, ack: true }));
      return client.publish(stream, payload, { timestampMs }).then(
        () => true,
        () => false,
      );
    };
    const p = new AudioPublisher(
      track,
      { ready: () => ready(AUDIO_QUEUE_BYTES, 'audio'), send, failed: deps.failed },
      await AudioPublisher.canEncode(),
      new URL('mic-worklet.js', deps.media.sdkBase).href,
    );
    return { track, stop: () => p.stop(), requestKeyFrame: () => undefined, setStep: () => undefined };
  }
  const send = async (payload: Uint8Array, layer: Layer, timestampMs: number): Promise<boolean> => {
    if (layer) {
      // Reduced layers: relayed live, never recorded, so there is no write to wait for.
      return client.publish(stream, payload, { layer, timestampMs }).then(
        () => true,
        () => false,
      );
    }
    // Layer 0 is recorded: acked once written, and each ack times the link (uplink.ts).
    return timed(client.publish(stream, payload, { timestampMs, ack: true }));
  };
  const profile = PROFILES[kind];
  const p = new VideoPublisher(
    track,
    profile,
    {
      ready: (layer) => uplink.videoMay(layer) && ready(VIDEO_QUEUE_BYTES, 'video'),
      send,
      failed: deps.failed,
    },
    await VideoPublisher.codecFor(profile, deps.media.videoCodec),
    new URL('capture-worker.js', deps.media.sdkBase).href,
  );
  p.setStep(uplink.current);
  return {
    track,
    stop: () => p.stop(),
    requestKeyFrame: (layer) => p.requestKeyFrame(layer),
    setStep: (step) => p.setStep(step),
  };
}

/** What a live room (live-room.ts) is opened with. */
import type { Devices } from './local-media';

/** Options of a room. */
export interface RoomOptions {
  /** the vss server (http or https; default: this page's origin) */
  url?: string;
  sessionId: string;
  userId: string;
  /** the name this participant joined with */
  displayName: string;
  /** false: a guest who may only watch and chat (the welcome says so too) */
  canPublish: boolean;
  /** the camera and microphone chosen before joining */
  devices: Devices;
  /** a fresh connection token; called for every (re)connect */
  token: () => Promise<string>;
  /** where the others' sound plays (created and resumed on a click); null: no sound */
  audio: AudioContext | null;
  /** the video codec to publish; absent: chosen for this browser */
  videoCodec?: 'vp8' | 'h264';
}

/** Where the SDK's own files (its worklet, worker and sound decoder) are served: the server's /sdk/. */
export const sdkBase = (opts: Pick<RoomOptions, 'url'>): string =>
  new URL('/sdk/', opts.url ?? location.origin).href;

/** Asks the browser for the camera, the microphone or a screen, with a readable reason on refusal. */
import type { TrackKind } from '@vss/protocol';

const NAMES: Record<TrackKind, string> = { cam: 'Camera', mic: 'Microphone', screen: 'Screen sharing' };

/** Why the browser gave no track, in words a person can act on. */
function reason(kind: TrackKind, err: unknown): string {
  const name = (err as { name?: string }).name;
  const what = NAMES[kind];
  if (name === 'NotAllowedError' || name === 'SecurityError')
    return kind === 'screen'
      ? 'Screen sharing was cancelled or not allowed.'
      : `${what} access was denied: allow it in the browser's site settings to use it. Continuing without it.`;
  if (name === 'NotFoundError' || name === 'OverconstrainedError')
    return `No ${what.toLowerCase()} was found. Continuing without it.`;
  if (name === 'NotReadableError' || name === 'AbortError')
    return `The ${what.toLowerCase()} is in use by another application or could not be started.`;
  if (typeof navigator.mediaDevices === 'undefined') return `${what} needs a secure (https) page.`;
  return `${what} could not be started: ${(err as Error).message ?? String(err)}`;
}

/** A capture track, or the reason there is none. */
export type Capture = { track: MediaStreamTrack } | { error: string };

/** The camera and microphone chosen before joining (device ids; absent: the browser's default). */
export type Devices = Partial<Record<'cam' | 'mic', string>>;

/** What is asked of the camera or the microphone: what the encoders expect, from `deviceId` if given. */
function deviceConstraints(kind: 'cam' | 'mic', deviceId: string | undefined): MediaStreamConstraints {
  const device = deviceId ? { deviceId: { exact: deviceId } } : {};
  return kind === 'cam'
    ? { video: { ...device, width: { ideal: 640 }, height: { ideal: 480 }, frameRate: { ideal: 15 } } }
    : { audio: { ...device, echoCancellation: true, noiseSuppression: true, channelCount: 1 } };
}

/**
 * Opens one capture device (cam and mic separately, so refusing one keeps the other); `deviceId`
 * picks a camera or microphone.
 */
export async function capture(kind: TrackKind, deviceId?: string): Promise<Capture> {
  try {
    const md = navigator.mediaDevices;
    const stream =
      kind === 'screen'
        ? await md.getDisplayMedia({ video: { frameRate: { ideal: 8 } }, audio: false })
        : await md.getUserMedia(deviceConstraints(kind, deviceId));
    const track = kind === 'mic' ? stream.getAudioTracks()[0] : stream.getVideoTracks()[0];
    if (!track) return { error: reason(kind, { name: 'NotFoundError' }) };
    return { track };
  } catch (err) {
    return { error: reason(kind, err) };
  }
}

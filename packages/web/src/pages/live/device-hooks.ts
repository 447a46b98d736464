/** The pre-join screen's devices: what is plugged in, the chosen camera's picture, the microphone's level. */
import { useEffect, useState } from 'react';
import { LevelMeter, listDevices, type DeviceLists } from '@vss/sdk';
import { capture } from '@vss/sdk';

/** A capture for the preview: its track, or why there is none (null while opening or off). */
export interface PreviewCapture {
  track: MediaStreamTrack | null;
  error: string | null;
}

/**
 * Opens the camera or microphone `deviceId` (the default when empty) while `on`, for the preview;
 * the track is stopped when the choice changes, when turned off and when the screen goes away.
 */
export function usePreviewCapture(kind: 'cam' | 'mic', deviceId: string, on: boolean): PreviewCapture {
  const [got, setGot] = useState<PreviewCapture>({ track: null, error: null });
  useEffect(() => {
    setGot({ track: null, error: null });
    if (!on) return;
    let gone = false;
    let track: MediaStreamTrack | null = null;
    void capture(kind, deviceId || undefined).then((c) => {
      if ('error' in c) {
        if (!gone) setGot({ track: null, error: c.error });
        return;
      }
      // Turned off or changed while the browser was opening it: let go of it at once.
      if (gone) return c.track.stop();
      track = c.track;
      setGot({ track, error: null });
    });
    return () => {
      gone = true;
      track?.stop();
    };
  }, [kind, deviceId, on]);
  return got;
}

/**
 * The cameras and microphones, listed again when a device is plugged in or out and after `tick`
 * changes (a capture that just got permission: the devices have names from then on).
 */
export function useDeviceLists(tick: unknown): DeviceLists {
  const [lists, setLists] = useState<DeviceLists>({ cam: [], mic: [] });
  useEffect(() => {
    let gone = false;
    const read = () =>
      void listDevices()
        .then((l) => gone || setLists(l))
        .catch(() => undefined);
    read();
    navigator.mediaDevices?.addEventListener?.('devicechange', read);
    return () => {
      gone = true;
      navigator.mediaDevices?.removeEventListener?.('devicechange', read);
    };
  }, [tick]);
  return lists;
}

/** How loud `track` is (0..1), read ten times a second; 0 without a track. */
export function useMicLevel(track: MediaStreamTrack | null): number {
  const [level, setLevel] = useState(0);
  useEffect(() => {
    setLevel(0);
    if (!track || typeof AudioContext === 'undefined') return;
    const meter = new LevelMeter(track);
    // Browsers start sound (and its analysis) only from a gesture: any click or key on the page will do.
    const wake = () => meter.resume();
    window.addEventListener('pointerdown', wake);
    window.addEventListener('keydown', wake);
    const t = setInterval(() => setLevel(meter.level()), 100);
    return () => {
      clearInterval(t);
      window.removeEventListener('pointerdown', wake);
      window.removeEventListener('keydown', wake);
      meter.close();
    };
  }, [track]);
  return level;
}

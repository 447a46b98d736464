/** Joining a live room, for members and guests: a first token, the connection, then the chosen devices. */
import { useCallback, useLayoutEffect, useRef } from 'react';
import { LiveRoom } from '@vss/sdk';
import type { JoinChoice } from './pre-join';

/** A joined room and the AudioContext its sound plays in (both the page's to close). */
export interface Joined {
  room: LiveRoom;
  audio: AudioContext | null;
}

/** Leaves a room and closes its sound; never rejects (a page being left has nobody to tell). */
export function release(j: Joined): void {
  void j.room
    .leave()
    .catch(() => undefined)
    .finally(() => j.audio?.close().catch(() => undefined));
}

/** An AudioContext started now, inside the click: browsers only let sound start from a gesture. */
function startAudio(): AudioContext | null {
  if (typeof AudioContext === 'undefined') return null;
  const ctx = new AudioContext({ latencyHint: 'interactive' });
  void ctx.resume().catch(() => undefined);
  return ctx;
}

/** What the server gave to connect with: the first token, and who it is for. */
export interface Credential {
  token: string;
  userId: string;
  displayName: string;
  /** false: a guest who watches and chats (media publishes would be refused) */
  canPublish: boolean;
  /** a token for each later connection (a reconnect) */
  again(): Promise<string>;
}

/**
 * Returns the join: from the click, asks `credential()` (the API's refusal is thrown before anything
 * connects), connects the room, hands it to `onJoined`, then starts the chosen microphone and camera.
 * A page left while joining (unmounted) joins nothing: whatever was started is released.
 */
export function useJoin(sessionId: string, onJoined: (j: Joined) => void) {
  /** undoes the join under way, if the page goes away first */
  const abandon = useRef<(() => void) | null>(null);
  // A layout effect: when the next page is still loading, React hides this one and keeps it
  // mounted (its plain effects run on) until that page is ready; a join must stop at once.
  useLayoutEffect(() => () => abandon.current?.(), []);

  return useCallback(
    async (choice: JoinChoice, step: (words: string) => void, credential: () => Promise<Credential>) => {
      const audio = startAudio();
      let room: LiveRoom | null = null;
      let gone = false;
      const undo = () => {
        gone = true;
        if (room) release({ room, audio });
        else void audio?.close().catch(() => undefined);
      };
      abandon.current = undo;
      try {
        step('Getting a connection token…');
        const first = await credential();
        if (gone) return;
        let firstToken: string | null = first.token;
        room = new LiveRoom({
          sessionId,
          userId: first.userId,
          displayName: first.displayName,
          canPublish: first.canPublish,
          devices: choice.devices,
          token: async () => {
            const t = firstToken ?? (await first.again());
            firstToken = null;
            return t;
          },
          audio,
        });
        step('Connecting…');
        await room.connect();
        if (gone) return;
      } catch (err) {
        if (gone) return;
        abandon.current = null;
        undo();
        throw err;
      }
      // From here the page owns the room (and leaves it when it goes away).
      abandon.current = null;
      onJoined({ room, audio });
      // One device after the other: each may ask the person for permission. A room left meanwhile
      // starts nothing (LiveRoom checks), and so does one whose guest may only watch.
      if (!room.snapshot().canPublish) return;
      if (choice.mic) await room.setPublishing('mic', true);
      if (choice.cam) await room.setPublishing('cam', true);
    },
    [sessionId, onJoined],
  );
}

import { useEffect, useRef, useState, type CSSProperties } from 'react';
import type { LayerState } from '@vss/protocol';
import type { LiveRoom } from '@vss/sdk';
import { deviceBusy } from '@vss/sdk';
import { presenterTile } from '@vss/sdk';
import { nameOf, type RoomState } from '@vss/sdk';
import '../../player/tiles.css';

const KIND_NAME = { cam: 'camera', screen: 'screen' } as const;
/** A peak above this counts as speaking. */
const SPEAKING_LEVEL = 0.01;
/** Speaking stays shown this long after the last loud chunk, so that it does not flicker between words. */
const SPEAKING_HOLD_MS = 1000;

/**
 * Whether this device was busy lately, looked at twice a second while `on`; watched from the
 * moment a remote tile shows, so that a hold-up before the server sends less video is known.
 */
function useDeviceBusy(on: boolean): boolean {
  const [busy, setBusy] = useState(false);
  useEffect(() => void deviceBusy(), []);
  useEffect(() => {
    if (!on) return setBusy(false);
    setBusy(deviceBusy());
    const t = setInterval(() => setBusy(deviceBusy()), 500);
    return () => clearInterval(t);
  }, [on]);
  return busy;
}

/** True while `userId` is heard: polls the room's level of their decoded microphone. */
function useSpeaking(room: LiveRoom, userId: string, on: boolean): boolean {
  const [speaking, setSpeaking] = useState(false);
  useEffect(() => {
    if (!on) return setSpeaking(false);
    let last = -Infinity;
    const t = setInterval(() => {
      const now = performance.now();
      if (room.audioLevel(userId) > SPEAKING_LEVEL) last = now;
      setSpeaking(now - last < SPEAKING_HOLD_MS);
    }, 150);
    return () => clearInterval(t);
  }, [room, userId, on]);
  return speaking;
}

/** What a viewer is told when the server sends them less of someone's video than there is. */
const VIDEO_MARK: Partial<Record<LayerState, string>> = {
  reduced: 'Reduced quality',
  stalled: 'Video paused',
};

/**
 * Why, as far as is known: the server says when it was busy itself; this page knows when it was
 * (a main thread held up, as on a busy machine, reads the connection late, and the server sees a
 * queue grow on a perfect link). Only when neither was is the connection to blame.
 */
function markOf(state: LayerState, serverBusy: boolean, deviceBusy: boolean): string | undefined {
  const what = VIDEO_MARK[state];
  if (!what) return undefined;
  const why = serverBusy ? 'the server is busy' : deviceBusy ? 'this device is busy' : 'slow connection';
  return `${what} — ${why}`;
}

/**
 * The name at the foot of a tile, on one line: a name longer than the tile ends in an ellipsis
 * (live.css), so the title holds it whole. " · screen" stays visible after a cut name.
 */
function TileName({ name, kind }: { name: string; kind: 'cam' | 'screen' }) {
  return (
    <span className="label tile-caption">
      <bdi className="tile-name" title={name}>
        {name}
      </bdi>
      {kind === 'cam' ? null : <span className="tile-kind">{'\u00a0· screen'}</span>}
    </span>
  );
}

/** Someone else's camera or screen, decoded into a canvas. */
function RemoteTile(props: {
  room: LiveRoom;
  userId: string;
  /** the name they joined with */
  name: string;
  kind: 'cam' | 'screen';
  on: boolean;
  mic: boolean;
  main: boolean;
  /** what this page gets of the video, as the server last said; absent: nothing said (full) */
  video: LayerState | undefined;
  /** the server said it was busy when it last sent less video */
  serverBusy: boolean;
}) {
  const { room, userId, kind } = props;
  const deviceBusy = useDeviceBusy(props.on && props.video !== undefined && props.video !== 'full');
  const mark = props.on && props.video ? markOf(props.video, props.serverBusy, deviceBusy) : undefined;
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => room.attachVideo(userId, kind, ref.current!), [room, userId, kind]);
  const speaking = useSpeaking(room, userId, kind === 'cam' && props.mic);
  const cls = ['tile', props.main ? 'main' : '', speaking ? 'speaking' : ''].filter(Boolean).join(' ');
  return (
    <figure className={cls} data-user={userId} data-kind={kind} data-video-state={props.video ?? 'full'}>
      <canvas ref={ref} role="img" aria-label={`${props.name}'s ${KIND_NAME[kind]}`} />
      {props.on ? null : <div className="tile-off">Camera off</div>}
      {mark ? (
        <p className={`tile-quality ${props.video}`} aria-live="polite">
          {mark}
        </p>
      ) : null}
      <figcaption>
        <TileName name={props.name} kind={kind} />
        {kind === 'cam' && !props.mic ? <span className="tile-muted">muted</span> : null}
      </figcaption>
    </figure>
  );
}

/** The local camera or screen, straight from the capture (not through the server). */
function OwnTile(props: {
  userId: string;
  name: string;
  kind: 'cam' | 'screen';
  stream: MediaStream | undefined;
  mic: boolean;
  main: boolean;
}) {
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    const v = ref.current;
    if (!v) return;
    v.srcObject = props.stream ?? null;
    if (props.stream) void v.play().catch(() => undefined);
  }, [props.stream]);
  return (
    <figure
      className={props.main ? 'tile main own' : 'tile own'}
      data-user={props.userId}
      data-kind={props.kind}
    >
      {/* muted: one's own voice is never played back */}
      <video ref={ref} muted playsInline aria-label={`your ${KIND_NAME[props.kind]}`} />
      {props.stream ? null : <div className="tile-off">Camera off</div>}
      <figcaption>
        <TileName name={props.name} kind={props.kind} />
        <span className="tile-you">you</span>
        {props.kind === 'cam' && !props.mic ? <span className="tile-muted">muted</span> : null}
      </figcaption>
    </figure>
  );
}

interface TileSpec {
  key: string;
  userId: string;
  kind: 'cam' | 'screen';
}

/** Every participant's camera tile, plus a tile per shared screen; presenter layout puts one first, large. */
export function Tiles({ room, state }: { room: LiveRoom; state: RoomState }) {
  const specs: TileSpec[] = [];
  for (const u of state.participants) {
    specs.push({ key: `${u}/cam`, userId: u, kind: 'cam' });
    if (state.tracks[u]?.includes('screen')) specs.push({ key: `${u}/screen`, userId: u, kind: 'screen' });
  }
  // In the presenter layout one tile is large, by the rule the player and the export share.
  const mainKey =
    state.layout === 'presenter'
      ? presenterTile(specs, state.focus, (t) => {
          const at = state.sharing.indexOf(t.userId);
          return at < 0 ? null : at;
        })?.key
      : undefined;
  const ordered = mainKey
    ? [...specs.filter((t) => t.key === mainKey), ...specs.filter((t) => t.key !== mainKey)]
    : specs;
  // The large tile spans as many rows as the strip beside it holds (player/tiles.css).
  const style = { '--strip': Math.max(1, ordered.length - 1) } as CSSProperties;
  return (
    <section aria-label="Participants" className={`tiles ${state.layout}`} style={style}>
      {ordered.map((t) => {
        const tracks = state.tracks[t.userId] ?? [];
        const main = t.key === mainKey;
        return t.userId === state.self ? (
          <OwnTile
            key={t.key}
            userId={t.userId}
            name={nameOf(state, t.userId)}
            kind={t.kind}
            stream={state.local[t.kind]}
            mic={tracks.includes('mic')}
            main={main}
          />
        ) : (
          <RemoteTile
            key={t.key}
            room={room}
            userId={t.userId}
            name={nameOf(state, t.userId)}
            kind={t.kind}
            on={tracks.includes(t.kind)}
            mic={tracks.includes('mic')}
            main={main}
            video={state.video[`${t.userId}/${t.kind}`]}
            serverBusy={state.serverBusy}
          />
        );
      })}
    </section>
  );
}

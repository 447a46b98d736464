import { useEffect, useId, useState, useSyncExternalStore } from 'react';
import { ErrorNote, Loading, Progress } from '../ui/kit';
import { ReplayEngine, SPEEDS } from './engine';
import { ChatLog, EventList } from './side-panels';
import type { PlaybackSource } from './source';
import { useStoryboard, type Storyboard, type StoryboardSource } from './storyboard';
import { Tiles } from './tiles';
import { TimeBar } from './time-bar';
import type { PlayerSnapshot } from './types';
import './player.css';

/** An engine for a source, for as long as the component shows it. */
function useEngine(source: PlaybackSource): ReplayEngine | null {
  const [engine, setEngine] = useState<ReplayEngine | null>(null);
  useEffect(() => {
    const e = new ReplayEngine(source);
    setEngine(e);
    return () => {
      e.destroy();
      setEngine(null);
    };
  }, [source]);
  return engine;
}

const noSubscribe = () => () => undefined;
const noSnapshot = () => null;

/**
 * Plays a recorded session from any source (signed in, public, replay link): the participants'
 * video in tiles, the audio, the chat and the timeline, with play/pause, seeking and speed.
 * `source` must be memoised by the caller: a new one starts a new player. `storyboard`: where its
 * thumbnails are read, shown over the time bar under the pointer.
 */
export function Player({ source, storyboard }: { source: PlaybackSource; storyboard?: StoryboardSource }) {
  const engine = useEngine(source);
  const board = useStoryboard(storyboard);
  const snap = useSyncExternalStore(
    engine?.subscribe ?? noSubscribe,
    engine?.snapshot ?? noSnapshot,
    noSnapshot,
  );
  if (!engine || !snap || snap.status === 'loading') {
    return snap?.error ? <ErrorNote error={snap.error} /> : <Loading label="Loading the recording…" />;
  }
  if (snap.status === 'error' && snap.end === 0) return <ErrorNote error={snap.error} />;
  return <PlayerView engine={engine} snap={snap} board={board} />;
}

function PlayerView(props: { engine: ReplayEngine; snap: PlayerSnapshot; board: Storyboard | null }) {
  const { engine, snap } = props;
  const speedId = useId();
  const playing = snap.status === 'playing' || snap.status === 'buffering';
  const nothing = snap.end <= snap.start && snap.tiles.length === 0;
  const seek = (ts: number) => engine.seek(ts);
  return (
    <section className="player" aria-label="Replay player">
      <div className="player-main">
        {snap.tiles.length ? (
          <Tiles
            engine={engine}
            tiles={snap.tiles}
            dark={snap.dark}
            direction={snap.direction}
            main={snap.main}
          />
        ) : (
          <div className="player-empty">
            <p>{nothing ? 'Nothing was recorded in this session.' : 'No video at this point.'}</p>
          </div>
        )}
        <div className="player-controls">
          <button type="button" onClick={() => (playing ? engine.pause() : engine.play())} disabled={nothing}>
            {playing ? 'Pause' : snap.status === 'ended' ? 'Play again' : 'Play'}
          </button>
          <TimeBar
            start={snap.start}
            end={snap.end}
            position={snap.position}
            bufferedUntil={snap.bufferedUntil}
            markers={snap.markers}
            names={snap.names}
            disabled={nothing}
            onSeek={seek}
            storyboard={props.board}
          />
          <span className="speed">
            <label htmlFor={speedId}>Speed</label>
            <select
              id={speedId}
              value={snap.speed}
              onChange={(e) => engine.setSpeed(Number(e.target.value))}
              aria-describedby={`${speedId}-hint`}
            >
              {SPEEDS.map((s) => (
                <option key={s} value={s}>
                  {s}×
                </option>
              ))}
            </select>
          </span>
          <small id={`${speedId}-hint`} className="muted">
            {snap.soundUnavailable ??
              (snap.speed === 1 ? 'Sound on' : 'Sound is muted at speeds other than 1×')}
          </small>
        </div>
        <PlayerStatus snap={snap} onRetry={() => seek(snap.position)} />
      </div>
      <div className="player-side">
        <ChatLog chat={snap.chat} pending={snap.chatPending} start={snap.start} names={snap.names} />
        <EventList markers={snap.markers} start={snap.start} names={snap.names} onSeek={seek} />
      </div>
    </section>
  );
}

/** Buffering progress, or the error that stopped reading with a way to try again. */
function PlayerStatus({ snap, onRetry }: { snap: PlayerSnapshot; onRetry(): void }) {
  if (snap.error) {
    return (
      <div className="row">
        <ErrorNote error={snap.error} />
        <button type="button" className="secondary" onClick={onRetry}>
          Try again
        </button>
      </div>
    );
  }
  if (snap.status !== 'buffering') return null;
  return <Progress label="Buffering…" />;
}

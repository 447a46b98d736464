import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { formatDuration } from '../ui/format';
import { pausedSpans } from './gaps';
import { describeEvent } from './labels';
import { useHoverPreview, type Storyboard } from './storyboard';
import type { Envelope } from './types';

/** Arrow keys move this far; Page Up/Down ten times as far. */
const KEY_STEP_MS = 5000;
/** A drag seeks once it rests this long, so that dragging does not start a read per pixel. */
const SEEK_DELAY_MS = 150;

/**
 * The scrubbable time bar: a range input (keyboard and screen-reader usable) over a track that
 * shows what is buffered ahead, a marker per timeline event, and the spans in which recording was
 * paused (skipped when played).
 */
export function TimeBar(props: {
  start: number;
  end: number;
  position: number;
  bufferedUntil: number;
  markers: Envelope[];
  /** the names participants joined with, by user_id */
  names: Record<string, string>;
  disabled: boolean;
  onSeek(ts: number): void;
  /** thumbnails shown while the pointer rests on the bar (none: no preview) */
  storyboard?: Storyboard | null;
}) {
  const { start, end, position } = props;
  const duration = Math.max(0, end - start);
  const [scrub, setScrub] = useState<number | null>(null);
  const hover = useHoverPreview(props.storyboard, duration);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const shown = scrub ?? position - start;
  const pct = (ms: number) =>
    duration ? `${(Math.min(Math.max(ms, 0), duration) / duration) * 100}%` : '0%';

  const seekSoon = (offset: number, delay: number) => {
    setScrub(offset);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      props.onSeek(start + offset);
      setScrub(null);
    }, delay);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    const moves: Record<string, number> = {
      ArrowLeft: -KEY_STEP_MS,
      ArrowDown: -KEY_STEP_MS,
      ArrowRight: KEY_STEP_MS,
      ArrowUp: KEY_STEP_MS,
      PageDown: -10 * KEY_STEP_MS,
      PageUp: 10 * KEY_STEP_MS,
      Home: -duration,
      End: duration,
    };
    const move = moves[e.key];
    if (move === undefined) return;
    // Why by hand: the range's own step is fine-grained (for dragging), too fine for a key press.
    e.preventDefault();
    seekSoon(Math.min(Math.max(shown + move, 0), duration), 0);
  };

  const text = `${formatDuration(shown)} / ${formatDuration(duration)}`;
  return (
    <div className="timebar">
      <div className="timebar-track" aria-hidden="true">
        <div
          className="timebar-buffered"
          style={{ left: pct(position - start), width: pct(props.bufferedUntil - position) }}
        />
        {pausedSpans(props.markers, end).map((g) => (
          <span
            key={g.start}
            className="timebar-gap"
            style={{ left: pct(g.start - start), width: pct(g.end - g.start) }}
            title={`${formatDuration(g.start - start)}–${formatDuration(g.end - start)} not recorded (paused)`}
          />
        ))}
        {props.markers.map((m) => (
          <span
            key={m.seq}
            className={`timebar-marker ${m.type.replace('.', '-')}`}
            style={{ left: pct(m.ts - start) }}
            title={`${formatDuration(m.ts - start)} ${describeEvent(m, props.names)}`}
          />
        ))}
        {hover.preview}
      </div>
      <input
        {...hover.handlers}
        type="range"
        aria-label="Position"
        min={0}
        max={duration}
        step={100}
        value={Math.min(Math.max(shown, 0), duration)}
        aria-valuetext={`${formatDuration(shown)} of ${formatDuration(duration)}`}
        disabled={props.disabled}
        onChange={(e) => seekSoon(Number(e.target.value), SEEK_DELAY_MS)}
        onKeyDown={onKeyDown}
      />
      {/* Why not an <output>: its implicit live region would read the time out ten times a
          second while playing; the slider's aria-valuetext says it when asked. */}
      <span className="timebar-time">{text}</span>
    </div>
  );
}

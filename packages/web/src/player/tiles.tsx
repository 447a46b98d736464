import { useCallback, type CSSProperties } from 'react';
import type { ReplayEngine } from './engine';
import { tileLabel } from './labels';
import type { Direction, TileInfo } from './types';
import './tiles.css';

/**
 * The participants' video, one canvas per track, laid out as the director says. The tiles stay
 * in one list in a stable order and the layout only moves them with CSS: re-creating a canvas
 * would blank it until the track's next key frame.
 */
export function Tiles({
  engine,
  tiles,
  direction,
  main,
}: {
  engine: ReplayEngine;
  tiles: TileInfo[];
  direction: Direction;
  /** the stream shown large (the engine applies the presenter rule), or null */
  main: string | null;
}) {
  const presenter = main !== null;
  return (
    <div
      className={`tiles player-tiles ${presenter ? 'presenter' : 'grid'}`}
      role="group"
      aria-label={`Participants, ${presenter ? 'presenter' : 'grid'} layout`}
    >
      {tiles.map((t) => {
        const big = t.streamId === main;
        // The large tile spans as many rows as the strip beside it holds (player.css).
        const style = big ? ({ '--strip': tiles.length - 1 } as CSSProperties) : undefined;
        const focused = direction.focus !== null && t.userId === direction.focus;
        return <Tile key={t.streamId} engine={engine} tile={t} big={big} focused={focused} style={style} />;
      })}
    </div>
  );
}

/** One participant's canvas; its decoder lives exactly as long as the canvas is on the page. */
function Tile(props: {
  engine: ReplayEngine;
  tile: TileInfo;
  big: boolean;
  focused: boolean;
  style: CSSProperties | undefined;
}) {
  const { engine, tile, big, focused } = props;
  const id = tile.streamId;
  // Why memoised: a new ref function on each render would detach and re-attach the canvas,
  // throwing the decoder away (and the picture with it) several times a second.
  const ref = useCallback(
    (el: HTMLCanvasElement | null) => {
      engine.attach(id, el);
      return () => engine.attach(id, null);
    },
    [engine, id],
  );
  return (
    <figure
      className={`tile${big ? ' main' : ''}${focused ? ' focused' : ''}`}
      style={props.style}
      data-stream={id}
    >
      <canvas ref={ref} role="img" aria-label={`Video of ${tileLabel(tile)}`} />
      <figcaption className="label">
        {tileLabel(tile)}
        {focused ? <span className="visually-hidden"> (in focus)</span> : null}
      </figcaption>
    </figure>
  );
}

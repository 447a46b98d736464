import { NAME_CARD_COLOURS } from '@vss/protocol';
import { useCallback, type CSSProperties } from 'react';
import type { ReplayEngine } from './engine';
import { tileLabel } from './labels';
import type { Direction, TileInfo } from './types';
import './tiles.css';

/**
 * The participants' video, one canvas per track, laid out as the director says. The tiles stay
 * in one list in a stable order and the layout only moves them with CSS: re-creating a canvas
 * would blank it until the track's next key frame. A tile with no picture at the playhead shows
 * the participant's name on their colour, as the export draws it.
 */
export function Tiles({
  engine,
  tiles,
  dark,
  direction,
  main,
}: {
  engine: ReplayEngine;
  tiles: TileInfo[];
  /** the tiles with no picture (their name card shows) */
  dark: string[];
  direction: Direction;
  /** the stream shown large (the engine applies the presenter rule), or null */
  main: string | null;
}) {
  const presenter = main !== null;
  // Colours by the order people first appear, as the export gives them.
  const people = [...new Set(tiles.map((t) => t.userId))];
  return (
    <div
      className={`tiles player-tiles ${presenter ? 'presenter' : 'grid'}`}
      role="group"
      aria-label={`Participants, ${presenter ? 'presenter' : 'grid'} layout`}
    >
      {tiles.map((t) => {
        const big = t.streamId === main;
        // The large tile spans as many rows as the strip beside it holds (player.css).
        const style = {
          ...(big ? { '--strip': tiles.length - 1 } : {}),
          '--card': NAME_CARD_COLOURS[people.indexOf(t.userId) % NAME_CARD_COLOURS.length],
        } as CSSProperties;
        const focused = direction.focus !== null && t.userId === direction.focus;
        return (
          <Tile
            key={t.streamId}
            engine={engine}
            tile={t}
            big={big}
            focused={focused}
            dark={dark.includes(t.streamId)}
            style={style}
          />
        );
      })}
    </div>
  );
}

/**
 * One participant's tile: their name card, or (a video tile) a canvas whose decoder lives exactly as
 * long as it is on the page, hidden under the name card while it has no picture.
 */
function Tile(props: {
  engine: ReplayEngine;
  tile: TileInfo;
  big: boolean;
  focused: boolean;
  dark: boolean;
  style: CSSProperties;
}) {
  const { tile, big, focused, dark } = props;
  return (
    <figure
      className={`tile${big ? ' main' : ''}${focused ? ' focused' : ''}${dark ? ' dark' : ''}`}
      style={props.style}
      data-stream={tile.streamId}
    >
      {tile.kind === 'name' ? null : <TileCanvas engine={props.engine} tile={tile} />}
      {dark ? (
        <div className="tile-card">
          <bdi>{tileLabel(tile)}</bdi>
        </div>
      ) : null}
      <figcaption className={dark ? 'visually-hidden' : 'label'}>
        {dark ? null : tileLabel(tile)}
        {focused ? <span className="visually-hidden"> (in focus)</span> : null}
      </figcaption>
    </figure>
  );
}

/** A video tile's canvas, given to the engine while it is on the page. */
function TileCanvas({ engine, tile }: { engine: ReplayEngine; tile: TileInfo }) {
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
  return <canvas ref={ref} role="img" aria-label={`Video of ${tileLabel(tile)}`} />;
}

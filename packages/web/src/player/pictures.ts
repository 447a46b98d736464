/**
 * Which tiles have a picture to show at the playhead. A tile without one shows the participant's
 * name card, as the export does, never a black or a stale picture: before the track's first frame,
 * after it stopped (unpublished, or the participant left), while a camera sends nothing for 10 s, and for
 * a participant with no video at all.
 */
import type { Posters } from './posters';
import type { Transcript } from './transcript';
import type { TileInfo } from './types';

/**
 * A camera that sent nothing for this long counts as off (the export's rule); a shorter gap holds
 * its last picture, as a publisher at its uplink's floor sends a picture or two a second.
 */
const CAMERA_SILENT_MS = 10_000;

/** Every participant's name card: the tiles when nobody in the recording has video. */
export function nameCards(names: Record<string, string>): TileInfo[] {
  return Object.entries(names).map(([userId, name]) => ({
    streamId: `name/${userId}`,
    userId,
    name,
    kind: 'name',
  }));
}

export class Pictures {
  /** streams whose canvas holds a picture drawn since it was last blanked */
  private readonly drawn = new Set<string>();
  /** the time of the last frame handed to each stream's decoder since then */
  private readonly last = new Map<string, number>();

  /** The decoder drew a picture on the stream's canvas. */
  drew(streamId: string): void {
    this.drawn.add(streamId);
  }

  /** A frame stamped `ts` went to the stream's decoder. */
  handed(streamId: string, ts: number): void {
    this.last.set(streamId, ts);
  }

  /** The stream's canvas was blanked or replaced: nothing is drawn on it. */
  blank(streamId: string): void {
    this.drawn.delete(streamId);
    this.last.delete(streamId);
  }

  /** A seek blanked every canvas. */
  clear(): void {
    this.drawn.clear();
    this.last.clear();
  }

  /** The tiles with no picture at `t`, in order. */
  dark(tiles: readonly TileInfo[], t: number, posters: Posters, transcript: Transcript): string[] {
    return tiles.filter((x) => !this.shows(x, t, posters, transcript)).map((x) => x.streamId);
  }

  private shows(tile: TileInfo, t: number, posters: Posters, transcript: Transcript): boolean {
    if (tile.kind === 'name' || !this.drawn.has(tile.streamId)) return false;
    // Before the first Play or seek a tile shows its track's first picture, wherever it lies.
    if (posters.shows(tile.streamId)) return true;
    const last = this.last.get(tile.streamId);
    if (last === undefined || last > t) return false;
    if (tile.kind === 'cam' && t - last > CAMERA_SILENT_MS) return false;
    return !transcript.endedBetween(tile.userId, tile.kind, last, t);
  }
}

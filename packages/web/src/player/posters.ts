import type { VideoTrackDecoder } from '@vss/sdk';
import type { MediaEvent } from './types';

/**
 * Until the first Play or seek, each tile shows its track's first picture rather than black: a
 * poster, its first key frame drawn ahead of the playhead. When playing starts, a poster whose
 * picture is not due yet (someone who joins later) is blanked again, since a picture from
 * elsewhere in the recording would be wrong there.
 */
export class Posters {
  /** the streams given a poster, with its time; null once playing or seeking started */
  private drawn: Map<string, number> | null = new Map();

  /**
   * Draws the first key frame of each track read so far that has a tile and no poster yet;
   * `handed` is told of each.
   */
  draw(
    video: readonly MediaEvent[],
    decoders: ReadonlyMap<string, VideoTrackDecoder>,
    handed: (streamId: string, ts: number) => void,
  ): void {
    if (!this.drawn) return;
    for (const e of video) {
      if (!e.key || this.drawn.has(e.streamId)) continue;
      const decoder = decoders.get(e.streamId);
      if (!decoder) continue;
      this.drawn.set(e.streamId, e.ts);
      decoder.push(e.payload, false);
      handed(e.streamId, e.ts);
    }
  }

  /** True while `streamId`'s tile shows its poster (before the first Play or seek). */
  shows(streamId: string): boolean {
    return this.drawn?.has(streamId) ?? false;
  }

  /**
   * Playing starts at `now`: posters not yet due are blanked, and none is drawn any more. Returns
   * the streams blanked.
   */
  takeDown(
    now: number,
    decoders: ReadonlyMap<string, VideoTrackDecoder>,
    canvases: ReadonlyMap<string, HTMLCanvasElement>,
  ): string[] {
    const blanked: string[] = [];
    for (const [streamId, ts] of this.drawn ?? []) {
      if (ts <= now) continue;
      decoders.get(streamId)?.reset();
      const c = canvases.get(streamId);
      c?.getContext('2d')?.clearRect(0, 0, c.width, c.height);
      blanked.push(streamId);
    }
    this.drawn = null;
    return blanked;
  }

  /** A seek: the picture at the new position is decoded as usual; no posters any more. */
  stop(): void {
    this.drawn = null;
  }
}

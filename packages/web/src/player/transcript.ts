/**
 * The small streams of a recording (chat, director, timeline events), kept whole once read:
 * unlike media they weigh little, and keeping them lets a seek backwards show the right chat and
 * layout at once.
 */
import type { Direction, Envelope } from './types';

/** Inserts into a list kept in (ts, seq) order, once per seq; true when it was new. */
function insert(list: Envelope[], seen: Set<number>, e: Envelope): boolean {
  if (seen.has(e.seq)) return false;
  seen.add(e.seq);
  let i = list.length;
  while (i > 0 && (list[i - 1]!.ts > e.ts || (list[i - 1]!.ts === e.ts && list[i - 1]!.seq > e.seq))) i--;
  list.splice(i, 0, e);
  return true;
}

/** Chat messages, director commands and timeline events read so far. */
export class Transcript {
  readonly chat: Envelope[] = [];
  readonly director: Envelope[] = [];
  readonly markers: Envelope[] = [];
  private readonly seen = new Set<number>();

  /** Adds an event of the `chat`, `director` or `events` stream; true when something new was added. */
  add(streamId: string, e: Envelope): boolean {
    if (streamId === 'chat') return insert(this.chat, this.seen, e);
    if (streamId === 'director') return insert(this.director, this.seen, e);
    if (streamId === 'events') return insert(this.markers, this.seen, e);
    return false;
  }

  /** Chat messages up to `ts`. */
  chatUntil(ts: number): Envelope[] {
    return this.chat.filter((m) => m.ts <= ts);
  }

  /** The number of chat messages up to `ts` (to tell whether the shown list changed). */
  chatCount(ts: number): number {
    let n = 0;
    while (n < this.chat.length && this.chat[n]!.ts <= ts) n++;
    return n;
  }

  /**
   * When `userId`'s screen share in force at `ts` started (ms), by the timeline; null when it was
   * off then; 0 when the timeline read so far does not tell (the share counts as on, oldest).
   */
  screenSince(userId: string, ts: number): number | null {
    let since: number | null | undefined;
    for (const e of this.markers) {
      if (e.ts > ts) break;
      const who = typeof e.data.user_id === 'string' ? e.data.user_id : e.actor;
      if (who !== userId) continue;
      if (e.type === 'participant.left') since = null;
      else if (e.data.kind !== 'screen') continue;
      else if (e.type === 'track.published') since = e.ts;
      else if (e.type === 'track.unpublished') since = null;
    }
    return since === undefined ? 0 : since;
  }

  /**
   * True when `userId`'s `kind` track ended (unpublished, or they left) after `from` and by `to`:
   * a picture drawn at `from` no longer stands for them at `to`.
   */
  endedBetween(userId: string, kind: string, from: number, to: number): boolean {
    return this.markers.some((e) => {
      if (e.ts <= from || e.ts > to) return false;
      const who = typeof e.data.user_id === 'string' ? e.data.user_id : e.actor;
      if (who !== userId) return false;
      return e.type === 'participant.left' || (e.type === 'track.unpublished' && e.data.kind === kind);
    });
  }

  /** Who is present at `ts`, by the timeline's joins and leaves, in the order they joined. */
  presentAt(ts: number): string[] {
    const present: string[] = [];
    for (const e of this.markers) {
      if (e.ts > ts) break;
      const who = typeof e.data.user_id === 'string' ? e.data.user_id : e.actor;
      const at = present.indexOf(who);
      if (e.type === 'participant.joined' && at < 0) present.push(who);
      else if (e.type === 'participant.left' && at >= 0) present.splice(at, 1);
    }
    return present;
  }

  /**
   * The layout and focus in force at `ts`: every director command up to then, in order. As in the
   * export, a focus on someone without video (`hasVideo` false) is ignored.
   */
  directionAt(ts: number, hasVideo: (userId: string) => boolean): Direction {
    const d: Direction = { layout: 'grid', focus: null };
    for (const e of this.director) {
      if (e.ts > ts) break;
      if (e.type === 'director.layout' && (e.data.layout === 'grid' || e.data.layout === 'presenter'))
        d.layout = e.data.layout;
      if (e.type === 'director.focus' && typeof e.data.user_id === 'string' && hasVideo(e.data.user_id))
        d.focus = e.data.user_id;
    }
    return d;
  }
}

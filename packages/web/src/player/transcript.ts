/**
 * The small streams of a recording (chat, director, timeline events), kept whole once read:
 * unlike media they weigh little, and keeping them lets a seek backwards show the right chat and
 * layout at once.
 */
import type { Direction, Envelope } from './types';

const utf8 = new TextDecoder();

/** Decodes base64 to bytes. */
export function fromBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** An envelope from a recorded body; null when the body is not one. */
export function envelopeOf(seq: number, body: Uint8Array): Envelope | null {
  try {
    const e = JSON.parse(utf8.decode(body)) as Partial<Envelope>;
    if (typeof e.type !== 'string' || typeof e.ts !== 'number') return null;
    return {
      seq,
      v: e.v ?? 1,
      type: e.type,
      ts: e.ts,
      actor: typeof e.actor === 'string' ? e.actor : 'system',
      data: e.data && typeof e.data === 'object' ? e.data : {},
    };
  } catch {
    return null;
  }
}

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

  /** The layout and focus in force at `ts`: every director command up to then, in order. */
  directionAt(ts: number): Direction {
    const d: Direction = { layout: 'grid', focus: null };
    for (const e of this.director) {
      if (e.ts > ts) break;
      if (e.type === 'director.layout' && (e.data.layout === 'grid' || e.data.layout === 'presenter'))
        d.layout = e.data.layout;
      if (e.type === 'director.focus' && typeof e.data.user_id === 'string') d.focus = e.data.user_id;
    }
    return d;
  }
}

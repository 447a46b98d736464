/**
 * The storyboard: thumbnails of a recording shown over the time bar while the pointer rests on it.
 * The server makes a JPEG sprite once the recording is ready, and a WebVTT whose cues say which
 * part of the sprite (`#xywh=`) stands for which span of the time bar. Both are read with the
 * access the player has (the login cookie and project, a public session, a replay link's token:
 * the cues' sprite address carries the token); a recording without one (no video, not made yet)
 * shows no preview, and nothing else changes.
 */
import { useEffect, useState, type MouseEvent } from 'react';
import { formatDuration } from '../ui/format';

/** Where the player reads a storyboard's WebVTT, and the headers its requests need. */
export interface StoryboardSource {
  url: string;
  headers?: Record<string, string>;
}

/** One cue: a span of the time bar (ms from the recording's start) and its thumbnail in the sprite. */
export interface StoryboardCue {
  fromMs: number;
  toMs: number;
  /** the sprite's absolute URL */
  image: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The cues, and each sprite as a URL the page can show (read with the source's headers). */
export interface Storyboard {
  cues: StoryboardCue[];
  sprites: Record<string, string>;
}

/** The storyboard of a session of the signed-in user's project (`projectId`: sent as `X-Project-Id`). */
export function userStoryboard(sessionId: string, projectId?: string): StoryboardSource {
  return {
    url: `/v1/sessions/${encodeURIComponent(sessionId)}/storyboard.vtt`,
    headers: projectId ? { 'x-project-id': projectId } : undefined,
  };
}

/** The storyboard of a public session, or with `token` of the session a replay link opens. */
export function publicStoryboard(sessionId: string, token?: string | null): StoryboardSource {
  const query = token ? `?token=${encodeURIComponent(token)}` : '';
  return { url: `/v1/public/sessions/${encodeURIComponent(sessionId)}/storyboard.vtt${query}` };
}

function vttMs(s: string): number | null {
  const m = /^(?:(\d+):)?(\d{2}):(\d{2})\.(\d{3})$/.exec(s.trim());
  if (!m) return null;
  return ((Number(m[1] ?? 0) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + Number(m[4]);
}

/** The `#xywh=` cues of a WebVTT, their sprite addresses resolved against `base` (the WebVTT's URL). */
export function parseStoryboard(text: string, base: string): StoryboardCue[] {
  const cues: StoryboardCue[] = [];
  for (const block of text.replace(/\r\n/g, '\n').split(/\n\n+/)) {
    const lines = block.split('\n');
    const at = lines.findIndex((l) => l.includes('-->'));
    if (at < 0 || at + 1 >= lines.length) continue;
    const [from, to] = lines[at]!.split('-->').map((s) => vttMs(s.split(' ').filter(Boolean)[0] ?? ''));
    const m = /^(.*)#xywh=(\d+),(\d+),(\d+),(\d+)$/.exec(lines[at + 1]!.trim());
    if (from == null || to == null || !m) continue;
    const image = new URL(m[1]!, base).href;
    cues.push({ fromMs: from, toMs: to, image, x: +m[2]!, y: +m[3]!, w: +m[4]!, h: +m[5]! });
  }
  return cues;
}

/** The cue at `ms` (the last one past the end). */
export function cueAt(cues: readonly StoryboardCue[], ms: number): StoryboardCue | null {
  return cues.find((c) => ms >= c.fromMs && ms < c.toMs) ?? cues[cues.length - 1] ?? null;
}

/** Reads a storyboard (null while there is none, or when the recording has none). */
export function useStoryboard(source: StoryboardSource | undefined): Storyboard | null {
  const [board, setBoard] = useState<Storyboard | null>(null);
  const url = source?.url;
  const headers = JSON.stringify(source?.headers ?? {});
  useEffect(() => {
    if (!url) return;
    const abort = new AbortController();
    const made: string[] = [];
    const get = (u: string) =>
      fetch(u, { headers: JSON.parse(headers), credentials: 'same-origin', signal: abort.signal });
    void (async () => {
      const res = await get(url);
      if (!res.ok) return; // none (yet): the time bar works without it
      const cues = parseStoryboard(await res.text(), new URL(url, location.href).href);
      const sprites: Record<string, string> = {};
      for (const image of new Set(cues.map((c) => c.image))) {
        const r = await get(image);
        if (!r.ok) return;
        made.push((sprites[image] = URL.createObjectURL(await r.blob())));
      }
      if (!abort.signal.aborted) setBoard({ cues, sprites });
    })().catch(() => undefined);
    return () => {
      abort.abort();
      made.forEach((u) => URL.revokeObjectURL(u));
      setBoard(null);
    };
  }, [url, headers]);
  return board;
}

/**
 * The preview of the time bar: where the pointer is over it (ms from the start), and the handlers
 * that follow the pointer. `preview` is the thumbnail with its time under it, or null.
 */
export function useHoverPreview(board: Storyboard | null | undefined, duration: number) {
  const [hover, setHover] = useState<{ ms: number; left: number } | null>(null);
  const handlers = {
    onMouseMove: (e: MouseEvent<HTMLElement>) => {
      const r = e.currentTarget.getBoundingClientRect();
      const f = Math.min(1, Math.max(0, (e.clientX - r.left) / Math.max(1, r.width)));
      setHover({ ms: f * duration, left: f * 100 });
    },
    onMouseLeave: () => setHover(null),
  };
  const cue = board && hover ? cueAt(board.cues, hover.ms) : null;
  const preview =
    cue && hover ? (
      <div className="storyboard-preview" style={{ left: `${hover.left}%` }} aria-hidden="true">
        <div
          className="storyboard-thumb"
          style={{
            width: cue.w,
            height: cue.h,
            backgroundImage: `url("${board!.sprites[cue.image]}")`,
            backgroundPosition: `${-cue.x}px ${-cue.y}px`,
          }}
        />
        <span className="storyboard-time">{formatDuration(hover.ms)}</span>
      </div>
    ) : null;
  return { handlers, preview };
}

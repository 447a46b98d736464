/**
 * Figures of receiver logs (receiver.ts), as the network tests and the benchmark define them.
 *
 * Delay: a frame's arrival minus its `timestamp_ms`, less the median of that same figure for the
 * track on an unconstrained receiver of the session (`baseline`), so that the publisher's clock
 * offset and its encoder's latency cancel and what is left is what the path added.
 * Windows are [from, to) in arrival time (ms since 1970), except the fraction of frames received,
 * which counts frames by their `timestamp_ms`: frames published in the window, received whenever.
 */

export type LogLine =
  | { t: number; k: 'welcome' }
  | {
      t: number;
      k: 'media';
      stream: string;
      ts: number;
      seq: number;
      bytes: number;
      key?: boolean;
      codec?: string;
      us?: number;
      dur?: number;
    }
  | { t: number; k: 'layer'; user: string; data: { track?: string; layer?: number; state?: string } }
  | { t: number; k: 'close'; code: number; reason: string };

export type MediaLine = Extract<LogLine, { k: 'media' }>;
export type Track = 'video' | 'audio';

/** The JSON lines of a receiver's stdout; lines that are not JSON objects are skipped. */
export function parseLog(text: string): LogLine[] {
  const out: LogLine[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as LogLine);
    } catch {
      // a line cut short by a killed process
    }
  }
  return out;
}

export function trackOf(stream: string): Track | null {
  if (/^media\/.+\/(cam|screen)$/.test(stream)) return 'video';
  if (/^media\/.+\/mic$/.test(stream)) return 'audio';
  return null;
}

const media = (log: LogLine[], track: Track): MediaLine[] =>
  log.filter((l): l is MediaLine => l.k === 'media' && trackOf(l.stream) === track);

export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

export const median = (values: number[]) => quantile(values, 0.5);

export type Baseline = Record<Track, number>;

/** Per track, the median of arrival − timestamp_ms on a receiver (the unconstrained one) over [from, to). */
export function baselineOf(log: LogLine[], from = -Infinity, to = Infinity): Baseline {
  const of = (track: Track) => {
    const d = media(log, track)
      .filter((m) => m.t >= from && m.t < to)
      .map((m) => m.t - m.ts);
    return d.length ? median(d) : 0;
  };
  return { video: of('video'), audio: of('audio') };
}

export interface DelayStats {
  frames: number;
  p50: number;
  p95: number;
  max: number;
}

/** A video frame a decoder could not use, and why. */
export interface Undecodable {
  t: number;
  stream: string;
  us: number;
  why: string;
}

/**
 * Video frames that are not decodable: a delta frame first on a stream, or after a picture
 * missing since the last frame received, or after the receiver was told of another layer (the
 * same picture has the same timestamps in every layer, so a switch shows only as a `layer`
 * event, and must be followed by a key frame). A picture is missing when `published` (per
 * stream, the chunk timestamps of the pictures published: the recording's layer 0) has one
 * between two received frames; without it, when the chunk timestamps leap more than 1.5 frame
 * durations (a publisher that re-anchors its clock then shows as a gap). A timestamp that does
 * not advance is another layer's copy of a picture: it needs a key frame too. Over the whole log.
 */
export function undecodable(log: LogLine[], published?: Map<string, number[]>): Undecodable[] {
  const index = new Map<string, Map<number, number>>();
  for (const [stream, list] of published ?? [])
    index.set(stream, new Map([...new Set(list)].sort((a, b) => a - b).map((us, i) => [us, i])));
  const state = new Map<string, { lastUs: number | null; needKey: string | null; layer: number | null }>();
  const of = (stream: string) => {
    let s = state.get(stream);
    if (!s) state.set(stream, (s = { lastUs: null, needKey: 'first frame', layer: null }));
    return s;
  };
  const out: Undecodable[] = [];
  for (const l of log) {
    if (l.k === 'layer') {
      const s = of(`media/${l.user}/${l.data.track ?? 'cam'}`);
      const layer = l.data.layer ?? null;
      if (layer !== s.layer && s.lastUs !== null) s.needKey = `switch to layer ${layer}`;
      s.layer = layer;
      continue;
    }
    if (l.k !== 'media' || trackOf(l.stream) !== 'video' || l.us === undefined) continue;
    const s = of(l.stream);
    if (s.lastUs !== null) {
      const positions = index.get(l.stream);
      const [a, b] = [positions?.get(s.lastUs), positions?.get(l.us)];
      const dur = l.dur && l.dur > 0 ? l.dur : 66_667;
      if (l.us <= s.lastUs) s.needKey = `timestamp ${l.us} after ${s.lastUs}`;
      else if (a !== undefined && b !== undefined) {
        if (b - a > 1) s.needKey = `${b - a - 1} missing picture(s)`;
      } else if (l.us - s.lastUs > 1.5 * dur) s.needKey = `gap of ${Math.round((l.us - s.lastUs) / 1000)} ms`;
    }
    if (l.key) s.needKey = null;
    else if (s.needKey)
      out.push({ t: l.t, stream: l.stream, us: l.us, why: `delta frame after ${s.needKey}` });
    s.lastUs = l.us;
  }
  return out;
}

export interface WindowStats {
  from: number;
  to: number;
  delay: Record<Track, DelayStats>;
  /** video frames arriving in each whole second of the window */
  fpsPerSecond: number[];
  fpsMean: number;
  fpsMin: number;
  /** the longest interval between consecutive audio messages overlapping the window (ms) */
  audioMaxGapMs: number;
  undecodable: Undecodable[];
  /** `layer` events (each is a change of layer or state) */
  layerSwitches: number;
  layerSwitchesPerS: number;
  /** the close, if the connection closed before the window's end */
  close: { t: number; code: number; reason: string } | null;
}

function delayStats(log: LogLine[], track: Track, baseline: Baseline, from: number, to: number): DelayStats {
  const d = media(log, track)
    .filter((m) => m.t >= from && m.t < to)
    .map((m) => m.t - m.ts - baseline[track]);
  return {
    frames: d.length,
    p50: quantile(d, 0.5),
    p95: quantile(d, 0.95),
    max: d.length ? Math.max(...d) : NaN,
  };
}

/** The longest silence of the audio track overlapping [from, to), counting to `to` (or the close) after the last message. */
export function audioMaxGap(log: LogLine[], from: number, to: number): number {
  const times = media(log, 'audio').map((m) => m.t);
  const close = log.find((l) => l.k === 'close');
  let max = 0;
  let prev = -Infinity;
  for (const t of [...times, Math.min(to, close?.t ?? Infinity)]) {
    const start = Math.max(prev, from);
    if (t > from && start < to) max = Math.max(max, Math.min(t, to) - start);
    prev = t;
    if (t >= to) break;
  }
  return max;
}

/** Everything of a receiver over [from, to). */
export function windowStats(log: LogLine[], baseline: Baseline, from: number, to: number): WindowStats {
  const seconds = Math.max(1, Math.floor((to - from) / 1000));
  const video = media(log, 'video');
  const fpsPerSecond = Array.from(
    { length: seconds },
    (_, i) => video.filter((m) => m.t >= from + i * 1000 && m.t < from + (i + 1) * 1000).length,
  );
  const layers = log.filter((l) => l.k === 'layer' && l.t >= from && l.t < to).length;
  const close = log.find((l): l is Extract<LogLine, { k: 'close' }> => l.k === 'close' && l.t < to) ?? null;
  return {
    from,
    to,
    delay: {
      video: delayStats(log, 'video', baseline, from, to),
      audio: delayStats(log, 'audio', baseline, from, to),
    },
    fpsPerSecond,
    fpsMean: video.filter((m) => m.t >= from && m.t < to).length / ((to - from) / 1000),
    fpsMin: Math.min(...fpsPerSecond),
    audioMaxGapMs: audioMaxGap(log, from, to),
    undecodable: undecodable(log).filter((u) => u.t >= from && u.t < to),
    layerSwitches: layers,
    layerSwitchesPerS: layers / ((to - from) / 1000),
    close: close ? { t: close.t, code: close.code, reason: close.reason } : null,
  };
}

/** Per whole second of [from, to): the figures the benchmark prints. */
export function perSecond(log: LogLine[], baseline: Baseline, from: number, to: number): WindowStats[] {
  const out: WindowStats[] = [];
  for (let s = from; s + 1000 <= to; s += 1000) out.push(windowStats(log, baseline, s, s + 1000));
  return out;
}

/**
 * Of the video pictures published with `timestamp_ms` in [from, to) (`published`: their
 * timestamps, from the recording or an unconstrained receiver), the fraction this receiver got in
 * any layer: a picture counts once however many layers of it arrived.
 */
export function fractionReceived(log: LogLine[], published: number[], from: number, to: number): number {
  const want = new Set(published.filter((ts) => ts >= from && ts < to));
  if (want.size === 0) return NaN;
  const got = new Set(
    media(log, 'video')
      .map((m) => m.ts)
      .filter((ts) => want.has(ts)),
  );
  return got.size / want.size;
}

export interface Recovery {
  /** the start of the first whole second after `raisedAt` with at least 90% of the baseline receiver's frames and delay p95 under `maxP95Ms`; null: none before `to` */
  recoveredAt: number | null;
  /** the slow and the baseline receiver over [recoveredAt, to) */
  after: WindowStats | null;
  baselineAfter: WindowStats | null;
}

/** When a receiver got back to the baseline receiver's frame rate after its link was raised at `raisedAt`. */
export function recovery(
  log: LogLine[],
  baselineLog: LogLine[],
  baseline: Baseline,
  raisedAt: number,
  to: number,
  maxP95Ms = 300,
): Recovery {
  for (let s = raisedAt; s + 1000 <= to; s += 1000) {
    const slow = windowStats(log, baseline, s, s + 1000);
    const fast = windowStats(baselineLog, baseline, s, s + 1000);
    if (
      slow.fpsMean >= 0.9 * fast.fpsMean &&
      slow.delay.video.p95 < maxP95Ms &&
      !(slow.delay.audio.p95 >= maxP95Ms)
    )
      return {
        recoveredAt: s,
        after: windowStats(log, baseline, s, to),
        baselineAfter: windowStats(baselineLog, baseline, s, to),
      };
  }
  return { recoveredAt: null, after: null, baselineAfter: null };
}

/**
 * What the path to this receiver added, frame by frame: its arrival of a frame minus the
 * unconstrained receiver's arrival of the same frame (same stream and `timestamp_ms`: the same
 * picture in any layer), over frames arriving in [from, to). Unlike the delay, it is free of the
 * publisher's own jitter (an encoder starved of CPU delivers late and in bursts, to everyone), so
 * it tells the path from the publisher on a busy machine. Informative: the targets use the delay.
 */
export function addedDelay(
  log: LogLine[],
  baselineLog: LogLine[],
  from: number,
  to: number,
): Record<Track, DelayStats> {
  const of = (track: Track): DelayStats => {
    const first = new Map<string, number>();
    for (const m of media(baselineLog, track)) {
      const key = `${m.stream} ${m.ts}`;
      if (!first.has(key)) first.set(key, m.t);
    }
    const d: number[] = [];
    for (const m of media(log, track)) {
      const at = first.get(`${m.stream} ${m.ts}`);
      if (m.t >= from && m.t < to && at !== undefined) d.push(m.t - at);
    }
    return {
      frames: d.length,
      p50: quantile(d, 0.5),
      p95: quantile(d, 0.95),
      max: d.length ? Math.max(...d) : NaN,
    };
  };
  return { video: of('video'), audio: of('audio') };
}

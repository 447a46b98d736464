/**
 * The replay engine: reads a recording ahead of the playhead, hands each video payload to its
 * tile's decoder when the playhead reaches it, schedules audio on the same clock, and keeps the
 * chat, the director's layout and the timeline for the page. The page draws `snapshot()`.
 */
import { fromBase64, parseMediaStream, shownFocus } from '@vss/protocol';
import { errorMessage } from '../api';
import { AudioOut, SOUND_UNSUPPORTED, watchSound } from '@vss/sdk';
import { readEnvelope } from '@vss/sdk';
import { presenterTile } from '@vss/sdk';
import { isKeyPayload, VideoTrackDecoder } from '@vss/sdk';
import { Backfill } from './backfill';
import { keep, merge } from './frames';
import { PlayClock } from './clock';
import { pastGap } from './gaps';
import { nameCards, Pictures } from './pictures';
import { Posters } from './posters';
import { WindowReader } from './reader';
import { sameList, snapshotChanged } from './snapshot';
import type { PlaybackSource, SourceInfo } from './source';
import { Transcript } from './transcript';
import type { MediaEvent, PlayerSnapshot, TileInfo, VideoTile, WireEvent } from './types';

/** Length of one playback window (ms): small enough to start fast, large enough to need few requests. */
export const WINDOW_MS = 2000;
/** How much recording is read ahead of the playhead: two windows. */
const AHEAD_MS = 2 * WINDOW_MS;
/** Audio is handed to the decoder this long before it is due, so it is decoded in time. */
const AUDIO_LEAD_MS = 250;
const TICK_MS = 30;

const NO_NAMES: Record<string, string> = {};
const NO_SOUND = 'Sound unavailable: this browser could not start sound (no speakers, or sound is blocked)';
/** The speeds offered. Audio is heard at 1× only: other speeds mute it (see setSpeed). */
export const SPEEDS = [0.5, 1, 1.5, 2, 4] as const;

/** Plays one recording; `destroy()` releases decoders, audio and requests. */
export class ReplayEngine {
  private readonly clock = new PlayClock();
  private readonly reader: WindowReader;
  /** reads the chat and director commands a seek forward skipped (made once the bounds are known) */
  private backfill: Backfill | null = null;
  private readonly transcript = new Transcript();
  private readonly ctl = new AbortController();
  private info: SourceInfo | null = null;
  private error: string | null = null;
  private readonly tiles = new Map<string, VideoTile>();
  /** every participant's name card: the tiles when nobody in the recording has video */
  private nameTiles: TileInfo[] = [];
  private readonly pictures = new Pictures();
  private readonly decoders = new Map<string, VideoTrackDecoder>();
  private readonly canvases = new Map<string, HTMLCanvasElement>();
  private readonly waiting = new Map<string, MediaEvent[]>();
  private video: MediaEvent[] = [];
  private readonly posters = new Posters();
  private audio: MediaEvent[] = [];
  /** index in `audio` of the next payload not yet handed to AudioOut */
  private audioNext = 0;
  private ctx: AudioContext | null = null;
  private soundOff: string | null = typeof AudioContext === 'undefined' ? NO_SOUND : null;
  private out: AudioOut | null = null;
  /** what the viewer asked for; the clock itself stops while buffering */
  private wantPlay = false;
  private stalled = false;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly listeners = new Set<() => void>();
  private snap: PlayerSnapshot;

  constructor(private readonly source: PlaybackSource) {
    this.reader = new WindowReader(
      source,
      WINDOW_MS,
      AHEAD_MS,
      (e) => this.receive(e),
      () => this.tick(),
    );
    this.snap = this.build();
    source
      .info(this.ctl.signal)
      .then((info) => {
        // Why: destroy() may have come while the answer was on its way; nothing may start then.
        if (this.ctl.signal.aborted) return;
        this.info = info;
        for (const id of info.streams) this.track(id);
        this.nameTiles = nameCards(info.names);
        for (const m of info.markers) this.transcript.add('events', m);
        this.clock.seek(info.start);
        this.reader.restart(info.start);
        this.backfill = new Backfill(
          source,
          info.start,
          (e) => this.receive(e),
          () => this.tick(),
        );
        this.tick();
      })
      .catch((err) => {
        if (this.ctl.signal.aborted) return;
        this.error = errorMessage(err);
        this.emit(true);
      });
    this.timer = setInterval(() => this.tick(), TICK_MS);
  }

  /** For useSyncExternalStore: called whenever the snapshot changes. */
  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  /** The current state for the page (a new object only when something shown changed). */
  snapshot = (): PlayerSnapshot => this.snap;

  /** Gives a tile's canvas (null when it leaves the page): its track is drawn there. */
  attach(streamId: string, canvas: HTMLCanvasElement | null): void {
    this.decoders.get(streamId)?.close();
    this.decoders.delete(streamId);
    this.canvases.delete(streamId);
    if (!canvas) return;
    this.canvases.set(streamId, canvas);
    this.pictures.blank(streamId);
    const decoder = new VideoTrackDecoder(canvas, undefined, () => this.pictures.drew(streamId));
    this.decoders.set(streamId, decoder);
    for (const e of this.waiting.get(streamId) ?? []) {
      decoder.push(e.payload, true);
      this.pictures.handed(streamId, e.ts);
    }
    this.waiting.delete(streamId);
  }

  /** Starts playing; must run in a click or key handler, where browsers let audio start. */
  play(): void {
    if (!this.info) return;
    if (this.clock.now() >= this.info.end) this.seek(this.info.start);
    for (const id of this.posters.takeDown(this.clock.now(), this.decoders, this.canvases))
      this.pictures.blank(id);
    this.startAudio();
    this.wantPlay = true;
    this.clock.play();
    this.tick();
  }

  pause(): void {
    this.wantPlay = false;
    this.stalled = false;
    this.clock.pause();
    this.stopAudio();
    this.emit(true);
  }

  /**
   * Jumps to `ts` (past a paused span it falls in). Decoders are reset (they need a key frame again) and the tiles blanked (a
   * picture from elsewhere in the recording would be wrong there, e.g. before someone joined).
   * Reading starts over one window before the one holding `ts`: of the frames from there to `ts`,
   * each track's are decoded at once from its last key frame at or before `ts` (see drawDue), so
   * the picture at `ts` shows even while paused; with none there, it starts at the next key frame.
   */
  seek(ts: number): void {
    if (!this.info) return;
    const { start, end } = this.info;
    const to = pastGap(this.transcript.markers, end, Math.min(Math.max(ts, start), end));
    this.posters.stop();
    this.pictures.clear();
    this.backfill?.retry();
    this.clock.seek(to);
    this.reader.restart(start + Math.max(0, Math.floor((to - start) / WINDOW_MS) - 1) * WINDOW_MS);
    this.video = [];
    this.audio = [];
    this.audioNext = 0;
    this.waiting.clear();
    for (const d of this.decoders.values()) d.reset();
    for (const c of this.canvases.values()) c.getContext('2d')?.clearRect(0, 0, c.width, c.height);
    this.out?.reset();
    this.tick();
  }

  /**
   * Changes the speed. Audio is muted at any speed but 1×: AudioOut plays decoded buffers at
   * their own rate, and speeding them up would also shift their pitch; silence is clearer.
   */
  setSpeed(speed: number): void {
    this.clock.setSpeed(speed);
    this.stopAudio();
    this.tick();
  }

  destroy(): void {
    clearInterval(this.timer);
    this.ctl.abort();
    this.reader.close();
    this.backfill?.close();
    for (const d of this.decoders.values()) d.close();
    this.decoders.clear();
    this.canvases.clear();
    this.out?.close();
    void this.ctx?.close().catch(() => undefined);
    this.listeners.clear();
  }

  private startAudio(): void {
    if (this.ctx || typeof AudioContext === 'undefined') return;
    const ctx = new AudioContext({ latencyHint: 'playback' });
    this.ctx = ctx;
    const off = (why: string) => this.ctx === ctx && ((this.soundOff = why), this.emit(true));
    this.out = new AudioOut(ctx, { unavailable: (why) => off(`Sound unavailable: ${why}`) });
    // The playhead follows the audio clock once it runs (and the wall clock whenever it does not).
    ctx.onstatechange = () => this.clock.useAudio(ctx);
    this.clock.useAudio(ctx);
    void ctx.resume().catch(() => undefined);
    watchSound(ctx, () => off(SOUND_UNSUPPORTED ? `Sound unavailable: ${SOUND_UNSUPPORTED}` : NO_SOUND));
  }

  /** Drops the audio handed on but not yet heard; it is handed on again from the playhead. */
  private stopAudio(): void {
    this.out?.reset();
    const t = this.clock.now();
    this.audioNext = this.audio.findIndex((e) => e.ts >= t);
    if (this.audioNext < 0) this.audioNext = this.audio.length;
  }

  private track(streamId: string): VideoTile | null {
    const media = parseMediaStream(streamId);
    if (!media || media.kind === 'mic') return null;
    let tile = this.tiles.get(streamId);
    if (!tile) {
      const name = this.info?.names[media.userId] ?? media.userId;
      tile = { streamId, userId: media.userId, name, kind: media.kind };
      this.tiles.set(streamId, tile);
    }
    return tile;
  }

  private receive(events: WireEvent[]): void {
    const video: MediaEvent[] = [];
    const audio: MediaEvent[] = [];
    for (const e of events) {
      const payload = fromBase64(e.body_base64);
      const media = parseMediaStream(e.stream_id);
      if (!media) {
        const env = readEnvelope(payload);
        if (env) this.transcript.add(e.stream_id, { ...env, seq: e.seq });
        continue;
      }
      const key = media.kind !== 'mic' && isKeyPayload(payload);
      const m = { seq: e.seq, ts: e.timestamp_ms, streamId: e.stream_id, payload, key };
      if (media.kind === 'mic') audio.push(m);
      else {
        this.track(e.stream_id);
        video.push(m);
      }
    }
    merge(this.video, video);
    merge(this.audio, audio);
  }

  private tick(): void {
    const info = this.info;
    if (!info || this.error) return this.emit(false);
    let t = this.clock.now();
    // Recording was paused here: nothing was stored, so the playhead jumps to where it resumed.
    const past = pastGap(this.transcript.markers, info.end, t);
    if (past !== t) return this.seek(past);
    if (this.wantPlay && t >= info.end) {
      this.wantPlay = false;
      this.clock.pause();
      this.clock.seek(info.end);
      this.stopAudio();
      t = info.end;
    }
    // Out of read-ahead: hold the playhead until the next answer arrives.
    const short = !this.reader.done && t > this.reader.bufferedUntil;
    if (this.wantPlay && short && !this.stalled) {
      this.stalled = true;
      this.clock.pause();
      this.stopAudio();
    } else if (this.stalled && (!short || !this.wantPlay)) {
      this.stalled = false;
      if (this.wantPlay) this.clock.play();
    }
    t = this.clock.now();
    this.drawDue(t);
    this.scheduleAudio(t);
    this.reader.fill(t);
    // After the playback reader: it may have restarted (a seek), leaving a hole behind it.
    this.backfill?.update(this.reader);
    this.emit(false);
  }

  /**
   * Hands on the video frames the playhead has reached. Several of one track at once (a seek's
   * lead-in, a stall) start from the last key frame among them: what lies before it would only be
   * decoded to be painted over, and is what made a burst overrun the decoder's queue.
   */
  private drawDue(t: number): void {
    this.posters.draw(this.video, this.decoders, (id, ts) => this.pictures.handed(id, ts));
    let n = 0;
    while (n < this.video.length && this.video[n]!.ts <= t) n++;
    if (!n) return;
    const due = this.video.splice(0, n);
    const from = new Map<string, number>();
    due.forEach((e, i) => {
      if (e.key) from.set(e.streamId, i);
    });
    const burst = new Map<string, number>();
    for (const e of due) burst.set(e.streamId, (burst.get(e.streamId) ?? 0) + 1);
    due.forEach((e, i) => {
      if (i < (from.get(e.streamId) ?? 0)) return;
      const decoder = this.decoders.get(e.streamId);
      if (decoder) {
        decoder.push(e.payload, burst.get(e.streamId)! > 1);
        this.pictures.handed(e.streamId, e.ts);
      } else keep(this.waiting, e);
    });
  }

  private scheduleAudio(t: number): void {
    const audible = this.clock.playing && this.clock.speed === 1 && this.out !== null;
    while (this.audioNext < this.audio.length && this.audio[this.audioNext]!.ts <= t + AUDIO_LEAD_MS) {
      const e = this.audio[this.audioNext]!;
      const when = audible ? this.clock.audioTime(e.ts) : null;
      // Not following the audio clock (paused, muted, audio not started): payloads pass unheard.
      if (when === null && e.ts > t) break;
      // Payloads already due (read in a seek's lead-in) are skipped rather than decoded for nothing.
      if (when !== null && e.ts >= t) this.out!.push(e.streamId, e.payload, when);
      this.audioNext++;
    }
    // Forget what has been heard (kept a moment, for a pause that hands it on again).
    let played = 0;
    while (played < this.audioNext && this.audio[played]!.ts < t - 1000) played++;
    if (played) {
      this.audio.splice(0, played);
      this.audioNext -= played;
    }
  }

  private status(t: number): PlayerSnapshot['status'] {
    if (this.error || this.reader.error || this.backfill?.error) return 'error';
    if (!this.info) return 'loading';
    if (this.stalled) return 'buffering';
    if (this.wantPlay) return 'playing';
    return t >= this.info.end ? 'ended' : 'paused';
  }

  private build(): PlayerSnapshot {
    const t = this.clock.now();
    const info = this.info;
    const old = this.snap as PlayerSnapshot | undefined;
    const chatCount = this.transcript.chatCount(t);
    const video = [...this.tiles.values()];
    const tiles = video.length ? video : this.nameTiles;
    const direction = this.transcript.directionAt(t, (u) => video.some((x) => x.userId === u));
    // A focus who left gives way to the first participant present, as in the live room and the export.
    const present = this.transcript.presentAt(t).filter((u) => video.some((x) => x.userId === u));
    const main =
      direction.layout === 'presenter' && video.length > 1
        ? (presenterTile(video, shownFocus(direction.focus, present), (x) =>
            this.transcript.screenSince(x.userId, t),
          )?.streamId ?? null)
        : null;
    return {
      status: this.status(t),
      position: info ? Math.min(Math.max(t, info.start), info.end) : 0,
      start: info?.start ?? 0,
      end: info?.end ?? 0,
      speed: this.clock.speed,
      bufferedUntil: Math.min(this.reader.bufferedUntil, info?.end ?? 0),
      tiles: sameList(old?.tiles, tiles),
      dark: sameList(old?.dark, this.pictures.dark(tiles, t, this.posters, this.transcript)),
      direction:
        old && old.direction.layout === direction.layout && old.direction.focus === direction.focus
          ? old.direction
          : direction,
      main,
      chat: old && old.chat.length === chatCount ? old.chat : this.transcript.chatUntil(t),
      chatPending: this.backfill?.pending(Math.min(t, info?.end ?? t)) ?? true,
      markers:
        old && old.markers.length === this.transcript.markers.length
          ? old.markers
          : [...this.transcript.markers],
      error: this.error ?? this.reader.error ?? this.backfill?.error ?? null,
      names: info?.names ?? NO_NAMES,
      soundUnavailable: this.soundOff,
    };
  }

  /** Rebuilds the snapshot and tells the page when anything shown changed. */
  private emit(force: boolean): void {
    const next = this.build();
    const old = this.snap;
    if (!force && !snapshotChanged(old, next)) return;
    this.snap = next;
    for (const fn of this.listeners) fn();
  }
}

/**
 * One bot: a participant that joins with LiveClient, says hello in the chat, publishes the shared
 * VP8 video on its camera in up to three layers (layers.ts) and its tone in Opus on its microphone
 * in real time, adapts what it sends to its uplink (uplink.ts), chats now and then, and leaves
 * cleanly: it waits (bounded) for the acks of what it sent, then closes with 1000.
 */
import { LiveClient, LiveError, type LiveCloseEvent } from '@vss/client';
import { LIVE_ERRORS } from '@vss/protocol';
import { WebSocket } from 'ws';
import { LayeredVideo } from './layers.js';
import { FRAME_MS, opusChunk } from './tone.js';
import type { BotStats } from './types.js';
import { describe, within, type BotSetup, type LeaveReason } from './setup.js';
import { Uplink } from './uplink.js';
import type { Picture, VideoEncoder } from './video.js';

const OPEN = 1;
/**
 * Audio is small and a gap in it is heard: it is never dropped for video (the video steps down and
 * is dropped past a quarter of this), only past this queue.
 */
const AUDIO_QUEUE_BOUND = 4 * 1024 * 1024;
/**
 * Frames a bot may fall behind its clock and still send late. The encoder paces itself (`-re`) and
 * after a stall (of its own, or of this process) sends what it owes in a burst: up to a second of
 * it goes out late; past that the missed audio is skipped.
 */
const MAX_AUDIO_CATCH_UP = 50;
/** Packets of an encoder that runs ahead of the bot's clock by more than this many frames wait. */
const MAX_AUDIO_AHEAD = 5;
/** How long a bot that is done waits for its last audio packets. */
const AUDIO_TAIL_MS = 1000;
/** How long a leaving bot waits for outstanding acks: normally, and when aborted. */
const DRAIN_MS = 5000;
const DRAIN_ABORTED_MS = 1000;
/** The close handshake is bounded too: a server that never answers must not hold the run. */
const CLOSE_MS = 3000;

/**
 * Uplink queue (ms) past which the bot sends no video until it has drained, but its smallest layer
 * (so that the picture keeps moving) and layer 0 at its floor (so that the recording goes on),
 * which stop only past the second figure.
 */
const VIDEO_DELAY_MS = 400;
const LASTING_DELAY_MS = 1000;

export class Bot {
  readonly userId: string;
  /** resolves once the bot has left (or given up joining) */
  readonly done: Promise<void>;
  private readonly setup: BotSetup;
  private readonly client: LiveClient;
  private readonly counters: Omit<BotStats, 'userId' | 'errors'> = {
    joined: false,
    framesSent: 0,
    framesAcked: 0,
    videoFrames: 0,
    audioFrames: 0,
    framesDropped: 0,
    relayedFrames: 0,
    bytesSent: 0,
    keyframeRequests: 0,
    uplinkStep: 0,
    stepChanges: 0,
    chats: 0,
    chatsAcked: 0,
    reconnects: 0,
  };
  private readonly problems = new Map<string, number>();
  /** settled-handlers of publishes whose ack has not come yet */
  private readonly pending = new Set<Promise<void>>();
  /** wall time (ms since 1970) of the welcome: the origin of the bot's media clock */
  private t0 = 0;
  private audioIndex = 0;
  private unsubscribeAudio: (() => void) | null = null;
  /** called once the last audio frame is sent */
  private audioSent: (() => void) | null = null;
  private chatTimer: ReturnType<typeof setInterval> | null = null;
  private endTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly video: LayeredVideo;
  private readonly uplink: Uplink;
  private unsubscribeVideo: (() => void) | null = null;
  private leaving: Promise<void> | null = null;
  private resolveDone!: () => void;
  /** the bot's sockets not yet closed: the last resort of leaving is to end them */
  private readonly sockets = new Set<WebSocket>();

  constructor(setup: BotSetup) {
    this.setup = setup;
    this.userId = setup.userId;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    const uplink = (this.uplink = new Uplink(
      setup.encodings - 1,
      setup.forcedSteps,
      () => this.counters.bytesSent,
      (step) => this.video.plannedBps(step),
    ));
    this.counters.uplinkStep = uplink.want;
    this.video = new LayeredVideo(
      {
        // Past VIDEO_DELAY_MS of queue on the uplink, video waits (from the next key frame on)
        // until it drains: the audio behind it must not wait for pictures already late.
        canSend: (bound, lasting) =>
          this.client.readyState === OPEN &&
          this.client.bufferedAmount <= bound &&
          this.uplink.delayMs <= (lasting ? LASTING_DELAY_MS : VIDEO_DELAY_MS),
        nowUs: () => (Date.now() - this.t0) * 1000,
        publish: (layer, chunk, ts) => {
          if (layer === 0) this.counters.videoFrames++;
          this.publishMedia('cam', chunk, this.t0 + ts / 1000, layer);
        },
        dropped: () => this.counters.framesDropped++,
        stepped: (step) => {
          this.counters.uplinkStep = step;
          this.counters.stepChanges++;
        },
        burst: () => this.uplink.pingNow(),
      },
      setup.encodings,
      uplink.want,
    );
    const sockets = this.sockets;
    // LiveClient takes the WebSocket class; this one keeps each socket within reach, so that a
    // close handshake the server never answers cannot keep the process alive (ws waits 30 s).
    class BotSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        sockets.add(this);
        uplink.attach(this);
        this.once('close', () => sockets.delete(this));
      }
    }
    this.client = new LiveClient({
      url: setup.url,
      session: setup.sessionId,
      userId: setup.userId,
      token: () => setup.token(setup.userId),
      // Binary publishes: no base64 on the way out, and media from the other bots arrives
      // without base64 decoding either, which matters when 50 bots all receive each other.
      format: 'binary',
      WebSocket: BotSocket,
    });
  }

  /** The bot's counters and problems as they stand. */
  snapshot(): BotStats {
    return {
      userId: this.userId,
      ...this.counters,
      errors: [...this.problems].map(([m, n]) => (n > 1 ? `${m} (${n} times)` : m)),
    };
  }

  /** True while its connection is open. */
  get connected(): boolean {
    return this.counters.joined && !this.leaving && this.client.readyState === OPEN;
  }

  /**
   * Connects and starts the microphone and the chat; resolves false when the bot could not join
   * (the problem is recorded and the bot is done) or was asked to leave first.
   */
  async join(): Promise<boolean> {
    if (this.leaving) return false;
    const { client, setup } = this;
    client.on('close', (e) => this.onClose(e));
    client.on('reconnecting', ({ attempt, delayMs }) =>
      setup.emit({ type: 'reconnecting', userId: this.userId, attempt, delayMs }),
    );
    client.on('reconnect', (attempt) => {
      this.counters.reconnects++;
      // Frames sent while the connection was down are gone: a viewer's decoder needs a key frame.
      this.video.restart();
      setup.emit({ type: 'reconnected', userId: this.userId, attempt });
    });
    client.on('error', (err) => this.record(`connection: ${describe(err)}`));
    client.on('control', (c) => {
      // Refusals of acked publishes come through their promise; a draining server's is no fault.
      if (c.event === 'error' && c.data.id === undefined && c.data.code !== LIVE_ERRORS.UNAVAILABLE)
        this.record(`server: ${String(c.data.code)}: ${String(c.data.message)}`);
      // ffmpeg's libvpx takes no key-frame command while it runs: a request is answered by the
      // encoding's next periodic key frame (every second on the reduced layers, every 2 s on the
      // full one). Counted, so that a run shows how often receivers needed one.
      if (c.event === 'keyframe' && c.data.track === 'cam') this.counters.keyframeRequests++;
    });
    let welcome;
    try {
      const timeoutS = setup.joinTimeoutMs / 1000;
      welcome = await within(client.connect(), setup.joinTimeoutMs, null);
      if (!welcome) throw new Error(`no welcome within ${timeoutS} s`);
    } catch (err) {
      if (!this.leaving) {
        this.record(`could not join: ${describe(err)}`);
        void this.leave('failed');
      }
      return false;
    }
    if (this.leaving) return false;
    this.t0 = Date.now();
    this.counters.joined = true;
    const present = welcome.data.participants;
    // The name the server shows the bot by.
    const name = welcome.data.display_name;
    setup.emit({
      type: 'joined',
      userId: this.userId,
      ...(typeof name === 'string' ? { displayName: name } : {}),
      participants: Array.isArray(present) ? present.length : 0,
    });
    this.chat(`hello from ${this.userId}`);
    this.uplink.start();
    this.unsubscribeAudio = setup.tone.onPacket((p) => {
      try {
        this.onAudio(p);
      } catch (err) {
        this.record(`audio: ${describe(err)}`);
      }
    });
    if (setup.chatEveryS > 0)
      this.chatTimer = setInterval(() => {
        const s = Math.round((Date.now() - this.t0) / 1000);
        this.chat(`${this.userId}: ${s} s in, ${this.counters.framesAcked} frames recorded`);
      }, setup.chatEveryS * 1000);
    this.endTimer = setTimeout(() => void this.leave('done'), setup.durationS * 1000);
    return true;
  }

  /** Publishes the encoder's pictures, each layer from its next key frame on. */
  attachVideo(encoder: VideoEncoder): void {
    if (this.leaving) return;
    this.unsubscribeVideo = encoder.onPicture((p) => {
      // One bot's failure must not reach the encoder's pipe, and through it the other bots.
      try {
        this.onVideo(p);
      } catch (err) {
        this.record(`video: ${describe(err)}`);
      }
    });
  }

  /** Notes that the video or the audio stopped; the bot goes on with the rest. */
  mediaFailed(message: string): void {
    if (!this.leaving) this.record(message);
  }

  /**
   * Leaves: stops publishing, waits a bounded time for outstanding acks, closes with 1000.
   * Idempotent; the first reason is the one reported.
   */
  leave(reason: LeaveReason): Promise<void> {
    this.leaving ??= this.leaveNow(reason);
    return this.leaving;
  }

  private async leaveNow(reason: LeaveReason): Promise<void> {
    // The encoder's packets may come a little after their time on a busy machine: a bot that is
    // done waits (bounded) for its last ones, so that its audio ends with its video.
    if (reason === 'done' && this.unsubscribeAudio && this.audioIndex <= this.lastAudioIndex())
      await within(new Promise<void>((r) => (this.audioSent = r)), AUDIO_TAIL_MS, null);
    this.unsubscribeAudio?.();
    this.unsubscribeAudio = null;
    this.uplink.stop();
    if (this.chatTimer) clearInterval(this.chatTimer);
    if (this.endTimer) clearTimeout(this.endTimer);
    this.unsubscribeVideo?.();
    if (this.pending.size > 0) {
      const bound = reason === 'aborted' ? DRAIN_ABORTED_MS : DRAIN_MS;
      const drained = await within(
        Promise.all([...this.pending]).then(() => true),
        bound,
        false,
      );
      if (!drained) this.record(`${this.pending.size} acks still outstanding after ${bound / 1000} s`);
    }
    const closed = await within(
      this.client.close().then(() => true),
      CLOSE_MS,
      false,
    );
    if (!closed) {
      this.record(`the server did not answer the close within ${CLOSE_MS / 1000} s`);
      for (const sock of this.sockets) sock.terminate();
    }
    this.setup.emit({ type: 'left', userId: this.userId, reason, stats: this.snapshot() });
    this.resolveDone();
  }

  private onClose(e: LiveCloseEvent): void {
    // Closes before the welcome are the join's to report; closes while leaving are ours.
    if (!this.counters.joined || this.leaving || e.willReconnect) return;
    this.record(`connection lost for good: code ${e.code}${e.reason ? ` (${e.reason})` : ''}`);
    void this.leave('disconnected');
  }

  /**
   * Sends the tone's next Opus packet as audio frame k, which covers [k·20, k·20 + 20) ms of the
   * bot's clock. The shared encoder runs in real time, so packets come as their time comes; frame
   * numbers, not arrival times, make the timestamps, so they stay evenly spaced. A bot that fell
   * behind (a stalled event loop) skips the frames it missed; packets of an encoder ahead of the
   * bot's clock wait for it.
   */
  private onAudio(packet: Uint8Array): void {
    const head = this.setup.tone.head;
    if (!this.unsubscribeAudio || !head) return;
    const last = this.lastAudioIndex();
    if (this.audioIndex > last) return;
    const due = Math.min(Math.floor((Date.now() - this.t0) / FRAME_MS), last);
    if (due - this.audioIndex > MAX_AUDIO_CATCH_UP) {
      this.counters.framesDropped += due - this.audioIndex;
      this.audioIndex = due;
    }
    if (this.audioIndex > due + MAX_AUDIO_AHEAD) return;
    const k = this.audioIndex++;
    if (this.client.readyState !== OPEN || this.client.bufferedAmount > AUDIO_QUEUE_BOUND) {
      this.counters.framesDropped++;
      return;
    }
    this.counters.audioFrames++;
    this.publishMedia('mic', opusChunk(head, packet, k), this.t0 + k * FRAME_MS);
    if (k === last) this.audioSent?.();
  }

  /** Exactly durationS of audio: the end timer may fire a little after the last frame's time. */
  private lastAudioIndex(): number {
    return Math.ceil((this.setup.durationS * 1000) / FRAME_MS) - 1;
  }

  private onVideo(picture: Picture): void {
    // Like the audio, the video ends at durationS even when the end timer fires a little later.
    if (this.leaving || Date.now() - this.t0 >= this.setup.durationS * 1000) return;
    this.video.onPicture(picture, this.uplink.want);
  }

  /**
   * Publishes a media frame; `timestampMs` is the bot's clock as wall time. Audio and video layer 0
   * ask for an ack (recorded); a reduced layer is relayed only and asks for none.
   */
  private publishMedia(kind: 'cam' | 'mic', payload: Uint8Array, timestampMs: number, layer = 0): void {
    const stream = `media/${this.userId}/${kind}`;
    this.counters.bytesSent += payload.length;
    if (layer > 0) {
      this.counters.relayedFrames++;
      // Refusals come as control errors without an id: recorded by the control listener.
      void this.client.publish(stream, payload, { layer, timestampMs: Math.round(timestampMs) }).catch(() => {
        // Not sent (the connection closed meanwhile): a lost frame of a layer nobody records.
      });
      return;
    }
    this.counters.framesSent++;
    const sent = this.client.publish(stream, payload, {
      ack: true,
      timestampMs: Math.round(timestampMs),
    });
    // A server that is draining (restarting) refuses what arrives before it sends the bot away: the
    // frame is lost like one sent while disconnected, not a fault of the bot's, and the video goes
    // on from a key frame once reconnected.
    const restarting = (err: unknown) => {
      if (!(err instanceof LiveError) || err.code !== LIVE_ERRORS.UNAVAILABLE) throw err;
      this.counters.framesDropped++;
      if (kind === 'cam') this.video.restart();
      return -1;
    };
    this.track(sent.catch(restarting), (seq) => {
      if (seq >= 0) this.counters.framesAcked++;
    });
  }

  private chat(text: string): void {
    if (this.client.readyState !== OPEN) return;
    this.counters.chats++;
    this.track(this.client.publishChat(text, { ack: true }), () => this.counters.chatsAcked++);
  }

  /** Counts the ack of `sent` when it comes, records the problem when it does not. */
  private track(sent: Promise<number>, onAck: (seq: number) => void): void {
    const settled = sent.then(onAck, (err: unknown) => this.record(`publish: ${describe(err)}`));
    this.pending.add(settled);
    void settled.then(() => this.pending.delete(settled));
  }

  /** Records a problem; the first occurrence of each is told as an event. */
  private record(message: string): void {
    const n = this.problems.get(message) ?? 0;
    this.problems.set(message, n + 1);
    if (n === 0) this.setup.emit({ type: 'error', userId: this.userId, message });
  }
}

/** The public types of the bots: their options, their progress events and their report. */

export interface BotOptions {
  /** http(s)://host:port of the vss server; the WebSocket URL (ws/wss) is derived from it */
  baseUrl: string;
  sessionId: string;
  /** mints a connection token (POST /v1/sessions/{id}/connection); called for every (re)connect */
  connectionToken: (userId: string) => Promise<string>;
  /** bots to run, >= 1 */
  count: number;
  /** how long each bot publishes after it joined, then leaves cleanly */
  durationS: number;
  /** user ids are `${prefix}-1` … (default 'bot') */
  userPrefix?: string;
  /** a video file to decode with ffmpeg instead of the test pattern (looped) */
  video?: string;
  /** defaults 640x360 at 15 fps */
  width?: number;
  height?: number;
  fps?: number;
  /** VP8 target bitrate of layer 0 (default: about 0.12 bit per pixel, 415 kbit/s at 640x360x15) */
  videoBitrateKbps?: number;
  /**
   * video layers to send, 1 to 3 (default 3): layer 0 at the bot's size (recorded), then half and
   * a quarter of the width and height (relayed live only); 1 is layer 0 alone
   */
  layers?: number;
  /**
   * For tests and demos: the uplink steps to take, each from `afterS` after joining on, instead of
   * measuring the uplink (step 1 stops layer 0, step 2 sends layer 2 alone)
   */
  forcedSteps?: Array<{ afterS: number; step: number }>;
  /** chat interval in seconds (default 5; 0: none); a hello on join always */
  chatEveryS?: number;
  /** interval of the `stats` event in seconds (default 5; 0: none) */
  statsEveryS?: number;
  /** how long a bot may take to join before it gives up (default 15) */
  joinTimeoutS?: number;
  /** the ffmpeg binary; default FFMPEG_PATH, else `ffmpeg` on PATH */
  ffmpegPath?: string;
  /** abort: every bot leaves cleanly now (SIGINT in the CLI) */
  signal?: AbortSignal;
  /** progress for the CLI to print */
  onEvent?: (e: BotEvent) => void;
}

/**
 * One bot's counters. Frames are media publishes that ask for an ack (audio and video layer 0, the
 * ones recorded); the reduced layers' frames are counted apart (relayedFrames).
 */
export interface BotStats {
  userId: string;
  /** the bot got its welcome at least once */
  joined: boolean;
  /** media frames handed to the socket */
  framesSent: number;
  /** media frames the server acknowledged: durably recorded */
  framesAcked: number;
  /** of framesSent: video frames (VP8 layer 0 on `media/<id>/cam`) and audio frames (Opus on `media/<id>/mic`) */
  videoFrames: number;
  audioFrames: number;
  /**
   * frames not sent: while reconnecting, while the socket's queue was over its bound (as a real-time
   * encoder drops frames), video while waiting for a key frame after either, audio after a stall;
   * not the layer-0 pictures an uplink step holds back (uplinkStep, stepChanges tell those)
   */
  framesDropped: number;
  /** frames of the reduced video layers (1 and 2) sent: relayed live, not recorded, not acked */
  relayedFrames: number;
  /** bytes of media payload handed to the socket, every layer and the audio */
  bytesSent: number;
  /**
   * key-frame requests from the server (control `keyframe`): ffmpeg's libvpx takes no key-frame
   * command while it runs, so each is answered by the encoding's next periodic key frame
   */
  keyframeRequests: number;
  /**
   * the uplink step sent now: 0 every layer, 1 without layer 0 (so the recording has a gap), 2 the
   * quarter-size layer 2 alone
   */
  uplinkStep: number;
  /** how often the step changed */
  stepChanges: number;
  /** chat messages sent, and acknowledged */
  chats: number;
  chatsAcked: number;
  /** successful reconnects */
  reconnects: number;
  /** distinct problems, each with how often it happened */
  errors: string[];
}

/** What `runBots` resolves with. */
export interface BotReport {
  bots: BotStats[];
  /** true when the signal ended the run early */
  aborted: boolean;
  /** wall time of the whole run */
  elapsedS: number;
}

/** Progress events. */
export type BotEvent =
  /** an ffmpeg process started: the one-frame probe of the input, the video encoder, an audio encoder */
  | { type: 'ffmpeg'; role: 'probe' | 'encoder' | 'audio'; pid: number; args: string[] }
  /**
   * a bot got its welcome; `participants` counts who was present then, itself included;
   * `displayName` is the name the server shows it by (its user id when it gave none)
   */
  | { type: 'joined'; userId: string; displayName?: string; participants: number }
  | { type: 'reconnecting'; userId: string; attempt: number; delayMs: number }
  | { type: 'reconnected'; userId: string; attempt: number }
  /**
   * a bot is done: `done` after durationS, `aborted` by the signal, `disconnected` when its
   * connection was lost for good, `failed` when it never joined
   */
  | { type: 'left'; userId: string; reason: 'done' | 'aborted' | 'disconnected' | 'failed'; stats: BotStats }
  /** the first occurrence of a problem of a bot (userId), or of the run (the video encoder) */
  | { type: 'error'; userId?: string; message: string }
  /** totals over all bots, every statsEveryS */
  | {
      type: 'stats';
      /** seconds since the bots started to join, a multiple of statsEveryS */
      elapsedS: number;
      /** bots whose connection is open right now */
      connected: number;
      framesSent: number;
      framesAcked: number;
      framesDropped: number;
      relayedFrames: number;
      keyframeRequests: number;
      /** how many connected bots are at uplink step 0, 1, 2 */
      steps: number[];
      chats: number;
    };

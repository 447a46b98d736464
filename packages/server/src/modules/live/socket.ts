import { CLOSE } from '@vss/protocol';
import type { WebSocket } from 'ws';
import { newId } from '../../lib/ids.js';
import type { IngestBudget } from './budget.js';
import type { LiveConnection } from './connection.js';
import type { MessageGuard } from './message-guard.js';
import type { LayerRates } from './layers.js';
import { ReceiverPacer, type PacerHooks } from './pacer.js';
import type { SocketStats } from './stats.js';
import type { Credential } from './token.js';

// One options object each, not one per send: a send runs once per receiver for every frame.
const AS_TEXT = { binary: false } as const;
const AS_BINARY = { binary: true } as const;

/** A receiver whose unsent backlog stays above this many bytes for HARD_BUFFER_MS is closed with 1013. */
export const HARD_BUFFER_BYTES = 8 * 1024 * 1024;
const HARD_BUFFER_MS = 5000;

/**
 * A `ws` socket as the hub's LiveConnection. Everything it sends goes through its ReceiverPacer,
 * which writes only what the receiver's link carries and drops video (to a key frame) rather than
 * queue it; a receiver whose backlog of what is never dropped (control, chat, audio) stays over
 * HARD_BUFFER_BYTES for HARD_BUFFER_MS is closed with 1013, so that one slow receiver never slows
 * the session.
 */
export function socketConnection(
  socket: WebSocket,
  who: {
    userId: string;
    displayName: string | null;
    canPublish: boolean;
    binary: boolean;
    credential: Credential;
    issuedAt: number;
  },
  stats: SocketStats,
  session: { rates: LayerRates; hooks: PacerHooks },
): LiveConnection {
  let overSince: number | null = null;
  const wire = {
    get open() {
      return socket.readyState === socket.OPEN;
    },
    get reading() {
      return !socket.isPaused;
    },
    write(data: Buffer | string, text: boolean) {
      socket.send(data, text ? AS_TEXT : AS_BINARY);
      stats.delivered += 1;
      stats.deliveredBytes += data.length;
    },
    ping(payload: Buffer) {
      socket.ping(payload);
    },
  };
  const pacer = new ReceiverPacer(wire, session.rates, stats, session.hooks);
  socket.on('pong', (data: Buffer) => pacer.onPong(data));
  socket.on('close', () => pacer.stop());
  const pressure = () => {
    if (pacer.backlog + socket.bufferedAmount <= HARD_BUFFER_BYTES) {
      overSince = null;
      return;
    }
    overSince ??= Date.now();
    if (Date.now() - overSince > HARD_BUFFER_MS) {
      socket.resume(); // to read the client's answer to the close
      socket.close(CLOSE.TRY_AGAIN_LATER, 'receiver too slow');
    }
  };
  return {
    id: newId(),
    userId: who.userId,
    displayName: who.displayName,
    canPublish: who.canPublish,
    binary: who.binary,
    credential: who.credential,
    issuedAt: who.issuedAt,
    pacer,
    sendText(text) {
      if (socket.readyState !== socket.OPEN) return;
      pacer.sendControl(text, true);
      pressure();
    },
    sendBinary(data) {
      if (socket.readyState !== socket.OPEN) return;
      pacer.sendControl(data, false);
      pressure();
    },
    sendMedia(m, build) {
      if (socket.readyState !== socket.OPEN) return;
      pacer.sendMedia(m, !who.binary, () => build(who.binary));
      pressure();
    },
    close: (code, reason) => {
      // What the connection was told before its close goes out before the close frame.
      pacer.flushControl();
      socket.resume(); // to read the client's answer to the close
      socket.close(code, reason);
    },
  };
}

/**
 * Pings every socket each interval; a socket that neither answered the previous ping nor sent
 * anything since is dead (its TCP peer vanished) and is terminated. A pong that waits behind
 * media on a slow link is no sign of a dead peer: any pong (the pacer's probes too) and any
 * message count. A socket paused for storage cannot read its pong, which is
 * no sign of a dead peer: it is skipped, and counted alive when it resumes.
 */
export class Heartbeat {
  private readonly sockets = new Map<WebSocket, { alive: boolean }>();
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs: number) {
    this.timer = setInterval(() => {
      for (const [socket, state] of this.sockets) {
        if (socket.isPaused) continue;
        if (!state.alive) {
          socket.terminate();
          continue;
        }
        state.alive = false;
        socket.ping();
      }
    }, intervalMs);
    this.timer.unref();
  }

  /** Watches a socket until it closes. */
  watch(socket: WebSocket): { alive: boolean } {
    const state = { alive: true };
    this.sockets.set(socket, state);
    socket.on('pong', () => (state.alive = true));
    socket.on('message', () => (state.alive = true));
    socket.on('close', () => this.sockets.delete(socket));
    return state;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * When the process holds more received media than the stream store has recorded (the ingest
 * budget), reads nothing more from this client until the store has caught up. TCP holds the rest
 * at the sender, so a server that cannot record as fast as it is sent slows its publishers down
 * instead of growing without bound. Called once a message's bytes are counted. The client is
 * credited the pause, so that what it sent meanwhile at an allowed rate is not refused as a burst.
 */
export function pauseWhileStorageBehind(
  socket: WebSocket,
  budget: IngestBudget,
  guard: MessageGuard,
  liveness: { alive: boolean },
  stats: SocketStats,
): void {
  if (socket.isPaused || socket.readyState !== socket.OPEN) return;
  const room = budget.room();
  if (!room) return;
  socket.pause();
  const pausedAt = Date.now();
  stats.pauses += 1;
  void room.then(() => {
    guard.creditPause(Date.now() - pausedAt);
    // Any ping sent before the pause was answered into a socket that was not read.
    liveness.alive = true;
    socket.resume();
  });
}

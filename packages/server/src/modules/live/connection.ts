import type { RecordingState } from './recording-control.js';
import type { ControlEvent, TrackKind } from '@vss/protocol';
import type { SessionsTable } from '../../db/types.js';
import type { LayerRates, MediaInfo } from './layers.js';
import type { ReceiverPacer } from './pacer.js';
import type { SessionText, TextRate } from './text-budget.js';
import type { Credential } from './token.js';

/** The transport side of one live connection, as the hub sees it (the gateway implements it). */
export interface LiveConnection {
  id: string;
  userId: string;
  /** the name others see (null: none was given, the user_id is shown) */
  displayName: string | null;
  /** false for a watch-and-chat guest: its media and director commands are refused */
  canPublish: boolean;
  /** media goes out as binary frames */
  binary: boolean;
  /** what issued its token (none: the API's own, as strong as an API key) */
  credential?: Credential;
  /** when its token was issued (ms since 1970): a removal at or after it sends the connection away */
  issuedAt?: number;
  /**
   * Sends a JSON text frame (a string, or its UTF-8 bytes when shared by many receivers): control,
   * chat, or a replay's message; never dropped.
   */
  sendText(text: string | Buffer): void;
  /** Sends a binary frame of a replay, in order with its text frames; never dropped. */
  sendBinary(data: Buffer): void;
  /**
   * Offers a live media message; `build` makes its wire form (binary or JSON text), called only
   * when this receiver is to get it. Paced per receiver: the layer chosen for it, audio first.
   */
  sendMedia(m: MediaInfo, build: (binary: boolean) => Buffer): void;
  /** the receiver's pacer, for the metrics (absent on connections that are not sockets) */
  pacer?: ReceiverPacer;
  close(code: number, reason: string): void;
}

/** A connection as a member of its live session: the tracks it publishes, its rate of chat and director commands. */
export interface Member {
  conn: LiveConnection;
  tracks: Set<TrackKind>;
  text: TextRate;
}

/** A session live in this process: its members here, and what orders their messages. */
export interface LiveSession {
  session: SessionsTable;
  orgId: string;
  /** participants whose media was redacted: their further media is refused */
  redacted: Set<string>;
  members: Map<string, Member>;
  unsubscribe: () => void;
  /** which video layers its publishers send, at what rate */
  rates: LayerRates;
  /** Serialises seq assignment and batching per session, so that seq follows arrival order. */
  chain: Promise<unknown>;
  /** what is stored of its messages: paused or not, and its recording rules */
  recording: RecordingState;
  /** the bytes of chat and director commands this process records of it */
  text: SessionText;
}

/** Sends a control signal to every other member of a session, here and in other processes. */
export type SendControl = (
  live: LiveSession,
  fromConn: string,
  event: ControlEvent,
  userId: string,
  data: Record<string, unknown>,
  ts: number,
) => void;

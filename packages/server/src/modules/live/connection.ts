import type { TrackKind } from '@vss/protocol';
import type { SessionsTable } from '../../db/types.js';

/** The transport side of one live connection, as the hub sees it (the gateway implements it). */
export interface LiveConnection {
  id: string;
  userId: string;
  /** media goes out as binary frames */
  binary: boolean;
  /** Sends a JSON text frame; `droppable` frames (media) may be dropped for a slow receiver. */
  /** Sends a JSON text frame (a string, or its UTF-8 bytes when shared by many receivers). */
  sendText(text: string | Buffer, droppable: boolean): void;
  sendBinary(data: Buffer): void;
  close(code: number, reason: string): void;
}

/** A connection as a member of its live session: the tracks it publishes. */
export interface Member {
  conn: LiveConnection;
  tracks: Set<TrackKind>;
}

/** A session live in this process: its members here, and what orders their messages. */
export interface LiveSession {
  session: SessionsTable;
  orgId: string;
  /** participants whose media was redacted: their further media is refused */
  redacted: Set<string>;
  members: Map<string, Member>;
  unsubscribe: () => void;
  /** Serialises seq assignment and batching per session, so that seq follows arrival order. */
  chain: Promise<unknown>;
}

/** The public types of LiveClient: its options, events and errors, and the reconnect backoff. */
import type { ControlFrame } from '@vss/protocol';

/**
 * The part of a WebSocket that LiveClient uses; browsers' `WebSocket` and the `ws` package's
 * both satisfy it. The handler parameters are `never` so that either implementation's event
 * type is accepted; LiveClient reads only `data`, `code`, `reason` and `message` from them.
 */
export interface WebSocketLike {
  readonly readyState: number;
  readonly bufferedAmount: number;
  binaryType: string;
  send(data: string | Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: never) => void) | null;
  onmessage: ((ev: never) => void) | null;
  onerror: ((ev: never) => void) | null;
  onclose: ((ev: never) => void) | null;
}

/** A WebSocket constructor: `WebSocket` from `ws` in Node, `globalThis.WebSocket` in browsers. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** Reconnect tuning: jittered exponential backoff between `minDelayMs` and `maxDelayMs`. */
export interface ReconnectOptions {
  /** attempts after one drop before giving up (default 10) */
  maxRetries: number;
  /** delay before the first attempt (default 250) */
  minDelayMs: number;
  /** ceiling of the delay (default 10000) */
  maxDelayMs: number;
}

/** The defaults of `ReconnectOptions`. */
export const DEFAULT_RECONNECT: Readonly<ReconnectOptions> = {
  maxRetries: 10,
  minDelayMs: 250,
  maxDelayMs: 10_000,
};

/** Options of `new LiveClient(...)`. */
export interface LiveClientOptions {
  /** base URL of the server, e.g. `ws://127.0.0.1:8080` (the client appends `/ws?...`) */
  url: string;
  /** session id */
  session: string;
  /** the user id the token was issued for */
  userId: string;
  /**
   * the connection token, or an async function returning a fresh one; the function is called
   * for every (re)connect, since tokens live only 300 s
   */
  token: string | (() => string | Promise<string>);
  /** 'binary' asks for media as binary frames and publishes binary by default (default 'json') */
  format?: 'json' | 'binary';
  /** false, or backoff options (partial: the rest from `DEFAULT_RECONNECT`); on by default */
  reconnect?: false | Partial<ReconnectOptions>;
  /** WebSocket constructor; defaults to `globalThis.WebSocket` when there is one */
  WebSocket?: WebSocketConstructor;
}

/** A received stream message, from a JSON `message` frame or a binary message frame. */
export interface LiveMessage {
  streamType: string;
  timestampMs: number;
  seq: number;
  payload: Uint8Array;
}

/** Payload of the 'close' event. */
export interface LiveCloseEvent {
  code: number;
  reason: string;
  /** true when the client will try to reconnect */
  willReconnect: boolean;
}

/** Events of LiveClient and their payloads. */
export interface LiveClientEvents {
  /** stream data */
  message: LiveMessage;
  /** every control frame, including welcome, ack and error */
  control: ControlFrame;
  /** a socket closed (also a failed reconnect attempt) */
  close: LiveCloseEvent;
  /** a reconnect attempt is scheduled after `delayMs` */
  reconnecting: { attempt: number; delayMs: number };
  /** reconnected: the welcome of attempt number `attempt` arrived */
  reconnect: number;
  /** transport errors, undecodable frames, a token function that threw, giving up on reconnecting */
  error: Error;
}

/** Options of `publish` and its helpers. */
export interface PublishOptions {
  /** media clock ms; JSON publishes omit it when absent (the server stamps), binary ones send Date.now() */
  timestampMs?: number;
  /** ask for a durable-write ack: the promise resolves with the message's `seq` */
  ack?: boolean;
  /** send a binary frame; default: the connection's format (chat and director helpers: false) */
  binary?: boolean;
  /**
   * the video layer of a cam or screen publish: 0 (default) is the full picture, the one
   * recorded; 1 and 2 are reduced copies relayed to receivers on slow links, never recorded (their
   * ack resolves with -1: no seq)
   */
  layer?: number;
}

/** A director command (stream `director`). */
export type DirectorCommand =
  | { type: 'director.layout'; data: { layout: 'grid' | 'presenter' } }
  | { type: 'director.focus'; data: { user_id: string } };

/**
 * An error of the live client. `code` is a server error code (`control`/`error` `data.code`,
 * e.g. `FORBIDDEN_STREAM`) or one of the client's: `UNAUTHORIZED` (HTTP 401 before the upgrade), `CONFLICT` (HTTP 409: session ended),
 * `CONNECT_FAILED`, `CLOSED`, `NOT_CONNECTED`, `RECONNECT_FAILED`, `BAD_FRAME`, `TOKEN`.
 */
export class LiveError extends Error {
  override readonly name = 'LiveError';
  constructor(
    readonly code: string,
    message: string,
    /** the WebSocket close code, when a close caused the error */
    readonly closeCode?: number,
  ) {
    super(message);
  }
}

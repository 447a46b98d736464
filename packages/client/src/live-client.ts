/**
 * LiveClient: a small client of the live WebSocket protocol (decisions §6), shared by tests,
 * benchmarks, the CLI and the browser dashboard. Isomorphic: the WebSocket constructor is passed
 * in (the `ws` package's in Node, `globalThis.WebSocket` in browsers), so this file imports
 * nothing Node-only and uses no DOM types.
 */
import {
  BINARY_MESSAGE,
  BINARY_PUBLISH,
  CLOSE,
  decodeBinaryFrame,
  encodeBinaryFrame,
  fromBase64,
  toBase64,
  type ControlFrame,
  type MessageFrame,
  type PublishFrame,
  type UnpublishFrame,
} from './protocol.js';

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

/** WebSocket ready states. */
const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 3;

/** Server close codes after which reconnecting would be wrong: the server meant it. */
const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  CLOSE.NORMAL,
  CLOSE.SESSION_ENDED,
  CLOSE.REMOVED,
  1008, // policy violation
]);

/**
 * The delay before reconnect attempt `attempt` (1-based): exponential from `minDelayMs`, capped
 * at `maxDelayMs`, with "equal jitter" (between half and all of it) so that the participants of
 * a session dropped together by a restart do not all come back in the same millisecond.
 */
export function backoffDelay(
  attempt: number,
  opts: ReconnectOptions,
  random: () => number = Math.random,
): number {
  const exp = Math.min(opts.maxDelayMs, opts.minDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + (random() * exp) / 2);
}

type Listener<T> = (arg: T) => void;

/** A minimal typed event emitter; a throwing listener neither stops the others nor the client. */
class Emitter<E> {
  private readonly sets = new Map<keyof E, Set<Listener<never>>>();

  on<K extends keyof E>(event: K, fn: Listener<E[K]>): () => void {
    let set = this.sets.get(event);
    if (!set) this.sets.set(event, (set = new Set()));
    set.add(fn as Listener<never>);
    return () => void set.delete(fn as Listener<never>);
  }

  emit<K extends keyof E>(event: K, arg: E[K], onListenerError: (err: unknown) => void): void {
    const set = this.sets.get(event);
    if (!set) return;
    // Copy first: a listener may unsubscribe (or subscribe) while we iterate.
    for (const fn of [...set] as Listener<E[K]>[]) {
      try {
        fn(arg);
      } catch (err) {
        onListenerError(err);
      }
    }
  }
}

const utf8 = new TextEncoder();

/** Bytes of a received binary WebSocket message (ArrayBuffer in browsers, Buffer or ArrayBuffer in `ws`). */
function bytesOf(data: unknown): Uint8Array | null {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return null;
}

const UNAUTHORIZED_HINT =
  'the connection token is missing, expired (tokens live 300 s: get a fresh one), forged, issued for ' +
  'another session, or user_id differs from the token’s';

/** The error a connect attempt rejects with when its socket closed before the welcome. */
function refusal(code: number, reason: string, transport?: string, serverError?: ControlFrame): LiveError {
  // Node's `ws` names the HTTP status of a refused upgrade ("Unexpected server response: 401").
  const status = /\b(?:response|status)\D{0,3}(\d{3})\b/i.exec(transport ?? '')?.[1];
  if (status === '401')
    return new LiveError('UNAUTHORIZED', `live connection refused with HTTP 401: ${UNAUTHORIZED_HINT}`, code);
  if (status === '409')
    return new LiveError(
      'CONFLICT',
      'live connection refused with HTTP 409: the session has ended (live tokens are refused after its end)',
      code,
    );
  if (status)
    return new LiveError('CONNECT_FAILED', `live connection refused with HTTP ${status}: ${transport}`, code);
  if (serverError) {
    const d = serverError.data as { code?: unknown; message?: unknown };
    return new LiveError(
      String(d.code ?? 'CONNECT_FAILED'),
      `live connection refused: ${String(d.message)}`,
      code,
    );
  }
  const why = [reason, transport].filter(Boolean).join('; ');
  return new LiveError(
    'CONNECT_FAILED',
    `live connection closed (code ${code}) before the welcome${why ? `: ${why}` : ''}. If the server ` +
      `refused the upgrade with HTTP 401 (browsers cannot see the status), ${UNAUTHORIZED_HINT}.`,
    code,
  );
}

/**
 * A client of one live session. Call `connect()`, listen with `on(...)`, publish with `publish`,
 * `publishChat` and `publishDirector`, and `close()` when done. After an unexpected drop it
 * reconnects with backoff and a fresh token (unless `reconnect: false`).
 */
export class LiveClient {
  /** the session id */
  readonly session: string;
  /** the user id */
  readonly userId: string;
  /** the connection's format */
  readonly format: 'json' | 'binary';

  private readonly baseUrl: string;
  private readonly token: LiveClientOptions['token'];
  private readonly backoff: ReconnectOptions | null;
  private readonly WS: WebSocketConstructor;
  private readonly events = new Emitter<LiveClientEvents>();
  /** acks awaited on the current socket, by publish id */
  private readonly pending = new Map<
    string,
    { resolve: (seq: number) => void; reject: (err: Error) => void }
  >();
  private readonly idPrefix = Math.random().toString(36).slice(2, 10);
  private nextId = 0;
  private sock: WebSocketLike | null = null;
  private connecting: Promise<ControlFrame> | null = null;
  private lastWelcome: ControlFrame | null = null;
  /** set between a welcome and the end of the client's life: only then do drops reconnect */
  private established = false;
  /** set by close(): no reconnect, and an in-flight connect gives up */
  private closing = false;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  /**
   * bumped by connect() and close(): an async step (token fetch, backoff timer) started under an
   * older generation must not open a socket
   */
  private gen = 0;
  /** sockets whose close the client asked for, and who waits for that close */
  private readonly closeWaiters = new Map<WebSocketLike, (() => void)[]>();

  constructor(opts: LiveClientOptions) {
    this.baseUrl = opts.url.replace(/\/+$/, '');
    this.session = opts.session;
    this.userId = opts.userId;
    this.token = opts.token;
    this.format = opts.format ?? 'json';
    this.backoff = opts.reconnect === false ? null : { ...DEFAULT_RECONNECT, ...opts.reconnect };
    const WS = opts.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!WS)
      throw new TypeError(
        'LiveClient: no WebSocket constructor (pass `WebSocket` from the ws package in Node)',
      );
    this.WS = WS;
  }

  /** Subscribes to an event; returns the unsubscribe function. */
  on<K extends keyof LiveClientEvents>(event: K, fn: (arg: LiveClientEvents[K]) => void): () => void {
    return this.events.on(event, fn);
  }

  /** The current socket's ready state; CONNECTING while waiting to reconnect, CLOSED when there is none. */
  get readyState(): number {
    if (this.sock) return this.sock.readyState;
    // Between sockets (fetching a token, waiting to reconnect) the client is still connecting.
    return this.connecting ? CONNECTING : CLOSED;
  }

  /** Bytes queued on the current socket and not yet sent (0 without one). */
  get bufferedAmount(): number {
    return this.sock?.bufferedAmount ?? 0;
  }

  /** The last welcome frame received (of the current or the latest connection). */
  get welcome(): ControlFrame | null {
    return this.lastWelcome;
  }

  /** The full connect URL for a token (values URL-encoded). */
  connectUrl(token: string): string {
    const q = `session=${encodeURIComponent(this.session)}&access_token=${encodeURIComponent(token)}&user_id=${encodeURIComponent(this.userId)}`;
    return `${this.baseUrl}/ws?${q}${this.format === 'binary' ? '&format=binary' : ''}`;
  }

  /**
   * Connects; resolves with the server's first message, the `control`/`welcome` frame. Rejects
   * (LiveError) if the socket closes or fails before it, e.g. `UNAUTHORIZED` on an HTTP 401.
   * A failed first connect is not retried: retrying a refused token would only hide the problem.
   * Calling it again while connected or reconnecting returns the same promise.
   */
  connect(): Promise<ControlFrame> {
    if (this.connecting) return this.connecting;
    const gen = ++this.gen;
    this.closing = false;
    this.established = false;
    this.attempt = 0;
    if (this.sock) {
      // Why: a socket still closing after close() must not be mistaken for the new connection;
      // its close event will no longer reach onSocketClosed, so settle its acks here.
      this.sock = null;
      this.rejectPending(new LiveError('CLOSED', 'the client closed the connection before the ack'));
    }
    const p = this.fetchToken().then((token) => {
      if (gen !== this.gen) throw new LiveError('CLOSED', 'the client was closed while connecting');
      return this.open(token);
    });
    this.connecting = p;
    // Why: a failed connect must not be handed out again by a later connect().
    p.catch(() => {
      if (this.connecting === p) this.connecting = null;
    });
    return p;
  }

  /**
   * Publishes `payload` on `streamType`. Without `ack` resolves once the frame is handed to the
   * socket; with `ack` resolves with the message's `seq` once the server has durably written it,
   * and rejects on a `control`/`error` for it (LiveError with the server's code and message) or
   * when the connection drops first. Rejects with `NOT_CONNECTED` when the socket is not open.
   */
  publish(streamType: string, payload: Uint8Array, opts: PublishOptions & { ack: true }): Promise<number>;
  publish(streamType: string, payload: Uint8Array, opts?: PublishOptions & { ack?: false }): Promise<void>;
  publish(streamType: string, payload: Uint8Array, opts?: PublishOptions): Promise<number | void>;
  publish(streamType: string, payload: Uint8Array, opts: PublishOptions = {}): Promise<number | void> {
    const id = opts.ack ? `${this.idPrefix}-${++this.nextId}` : undefined;
    let data: string | Uint8Array;
    try {
      if (opts.binary ?? this.format === 'binary') {
        data = encodeBinaryFrame({
          kind: BINARY_PUBLISH,
          streamType,
          // Why Date.now(): the binary header has no "absent" timestamp, unlike JSON's optional field.
          timestampMs: opts.timestampMs ?? Date.now(),
          ...(id ? { id } : {}),
          payload,
        });
      } else {
        const frame: PublishFrame = { type: 'publish', stream_type: streamType, body: toBase64(payload) };
        if (opts.timestampMs !== undefined) frame.timestamp_ms = opts.timestampMs;
        if (id) frame.id = id;
        data = JSON.stringify(frame);
      }
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    if (!id) return this.send(data);
    // Why register before sending: the ack can never beat the registration, even on a fast loopback.
    const acked = new Promise<number>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    return this.send(data).then(
      () => acked,
      (err: unknown) => {
        this.pending.delete(id);
        throw err;
      },
    );
  }

  /** Publishes a chat message: UTF-8 JSON `{ text }` on stream `chat` (JSON frame unless `binary`). */
  publishChat(text: string, opts: PublishOptions & { ack: true }): Promise<number>;
  publishChat(text: string, opts?: PublishOptions & { ack?: false }): Promise<void>;
  publishChat(text: string, opts?: PublishOptions): Promise<number | void>;
  publishChat(text: string, opts?: PublishOptions): Promise<number | void> {
    // Why binary: false by default: binary frames are offered for media; chat stays JSON.
    return this.publish('chat', utf8.encode(JSON.stringify({ text })), { binary: false, ...opts });
  }

  /** Publishes a director command on stream `director` (JSON frame unless `binary`). */
  publishDirector(command: DirectorCommand, opts: PublishOptions & { ack: true }): Promise<number>;
  publishDirector(command: DirectorCommand, opts?: PublishOptions & { ack?: false }): Promise<void>;
  publishDirector(command: DirectorCommand, opts?: PublishOptions): Promise<number | void>;
  publishDirector(command: DirectorCommand, opts?: PublishOptions): Promise<number | void> {
    return this.publish('director', utf8.encode(JSON.stringify(command)), { binary: false, ...opts });
  }

  /** Stops a media track: sends `{ type: 'unpublish', stream_type }`. */
  unpublish(streamType: string): Promise<void> {
    const frame: UnpublishFrame = { type: 'unpublish', stream_type: streamType };
    return this.send(JSON.stringify(frame));
  }

  /**
   * Closes without reconnecting; resolves once the socket has closed. Pending acks reject and an
   * in-flight connect() rejects.
   */
  close(code: number = CLOSE.NORMAL, reason = ''): Promise<void> {
    this.closing = true;
    this.gen++;
    this.connecting = null;
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    const sock = this.sock;
    if (!sock || sock.readyState === CLOSED) {
      // No socket (between reconnect attempts, or fetching a token): nothing will close later.
      this.sock = null;
      this.rejectPending(new LiveError('CLOSED', 'the client closed the connection before the ack'));
      this.finish();
      return Promise.resolve();
    }
    const closed = new Promise<void>((resolve) => {
      const list = this.closeWaiters.get(sock) ?? [];
      list.push(resolve);
      this.closeWaiters.set(sock, list);
    });
    sock.close(code, reason);
    return closed;
  }

  private send(data: string | Uint8Array): Promise<void> {
    const sock = this.sock;
    if (!sock || sock.readyState !== OPEN)
      return Promise.reject(new LiveError('NOT_CONNECTED', 'the live connection is not open'));
    try {
      sock.send(data);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return Promise.resolve();
  }

  private async fetchToken(): Promise<string> {
    try {
      return typeof this.token === 'function' ? await this.token() : this.token;
    } catch (err) {
      throw new LiveError(
        'TOKEN',
        `the token function failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  /**
   * Opens one socket; resolves with its welcome, rejects when it closes first. Whatever happens
   * after the welcome is handled by the socket's handlers (onSocketClosed decides on reconnecting).
   */
  private open(token: string): Promise<ControlFrame> {
    const initial = !this.established;
    let sock: WebSocketLike;
    try {
      sock = new this.WS(this.connectUrl(token));
    } catch (err) {
      // e.g. a malformed url. Why through onSocketClosed: it applies the same retry/give-up rules.
      const error = new LiveError(
        'CONNECT_FAILED',
        `cannot open the WebSocket: ${(err as Error).message}`,
        1006,
      );
      if (!initial) this.emitError(error);
      this.onSocketClosed(1006, error.message);
      return Promise.reject(error);
    }
    // Why: a Blob (the browser default) can only be read asynchronously, which would reorder frames.
    sock.binaryType = 'arraybuffer';
    this.sock = sock;
    return new Promise<ControlFrame>((resolve, reject) => {
      let welcomed = false;
      let transportError: string | undefined;
      let serverError: ControlFrame | undefined;
      sock.onmessage = (ev: { data: unknown }) => {
        // Why: a stale socket (replaced by a reconnect) must not feed the client.
        if (this.sock !== sock) return;
        const control = this.receive(ev.data);
        if (!control) return;
        if (control.event === 'welcome' && !welcomed) {
          welcomed = true;
          // Why set here, synchronously: a close right after the welcome must already count
          // as a drop of an established connection (reconnect, with a fresh retry budget).
          this.established = true;
          this.attempt = 0;
          this.lastWelcome = control;
          resolve(control);
        } else if (control.event === 'error' && !welcomed) {
          serverError = control;
        }
      };
      sock.onerror = (ev: { message?: unknown; error?: unknown }) => {
        const msg =
          typeof ev.message === 'string'
            ? ev.message
            : ev.error instanceof Error
              ? ev.error.message
              : undefined;
        transportError = msg ?? transportError;
        // Why not during the first connect: its rejection already reports the failure.
        if (!initial || welcomed) this.emitError(new LiveError('CONNECT_FAILED', msg ?? 'WebSocket error'));
      };
      sock.onclose = (ev: { code?: number; reason?: unknown }) => {
        const code = ev.code ?? 1006;
        const reason = typeof ev.reason === 'string' ? ev.reason : String(ev.reason ?? '');
        const byClient = this.closeWaiters.has(sock);
        if (!welcomed)
          reject(
            byClient
              ? new LiveError('CLOSED', 'the client closed the connection before the welcome', code)
              : refusal(code, reason, transportError, serverError),
          );
        // Why the check: a socket left behind by close() + connect() must not end the new connection.
        if (this.sock === sock) {
          this.sock = null;
          this.onSocketClosed(code, reason);
        }
        const waiters = this.closeWaiters.get(sock) ?? [];
        this.closeWaiters.delete(sock);
        for (const fn of waiters) fn();
      };
    });
  }

  /** Decodes one received frame and emits it; returns it when it is a control frame. */
  private receive(data: unknown): ControlFrame | null {
    if (typeof data !== 'string') {
      const bytes = bytesOf(data);
      if (!bytes) return this.badFrame('unsupported WebSocket message data');
      let frame;
      try {
        frame = decodeBinaryFrame(bytes);
      } catch (err) {
        return this.badFrame(`undecodable binary frame: ${(err as Error).message}`);
      }
      if (frame.kind !== BINARY_MESSAGE)
        return this.badFrame('unexpected binary publish frame from the server');
      this.emit('message', {
        streamType: frame.streamType,
        timestampMs: frame.timestampMs,
        seq: frame.seq ?? 0,
        payload: frame.payload,
      });
      return null;
    }
    let frame: MessageFrame | ControlFrame;
    try {
      frame = JSON.parse(data) as MessageFrame | ControlFrame;
    } catch {
      return this.badFrame('server text frame is not JSON');
    }
    if (frame?.type === 'message') {
      let payload: Uint8Array;
      try {
        payload = fromBase64(frame.body);
      } catch {
        return this.badFrame('message body is not base64');
      }
      this.emit('message', {
        streamType: frame.stream_type,
        timestampMs: frame.timestamp_ms,
        seq: frame.seq,
        payload,
      });
      return null;
    }
    if (frame?.type !== 'control') return null; // Why: unknown frame types are ignored, for forward compatibility.
    const d = (frame.data ?? {}) as { id?: unknown; seq?: unknown; code?: unknown; message?: unknown };
    const waiter = typeof d.id === 'string' ? this.pending.get(d.id) : undefined;
    if (waiter && typeof d.id === 'string') {
      if (frame.event === 'ack' && typeof d.seq === 'number') {
        this.pending.delete(d.id);
        waiter.resolve(d.seq);
      } else if (frame.event === 'error') {
        this.pending.delete(d.id);
        waiter.reject(
          new LiveError(String(d.code ?? 'SERVER_ERROR'), String(d.message ?? 'refused by the server')),
        );
      }
    }
    this.emit('control', frame);
    return frame;
  }

  private onSocketClosed(code: number, reason: string): void {
    // Why: acks are per connection; the server will never answer them on another socket.
    this.rejectPending(new LiveError('CLOSED', `the connection closed (code ${code}) before the ack`, code));
    const max = this.backoff?.maxRetries ?? 0;
    const wanted = !this.closing && this.established && !FINAL_CLOSE_CODES.has(code);
    const willReconnect = wanted && this.attempt < max;
    this.emit('close', { code, reason, willReconnect });
    // Why re-check `closing`: a 'close' listener may have called close() just now.
    if (willReconnect && !this.closing) return this.scheduleReconnect();
    if (wanted && !this.closing && this.attempt > 0)
      this.emitError(new LiveError('RECONNECT_FAILED', `gave up reconnecting after ${max} attempts`, code));
    this.finish();
  }

  /** The client's life ended (closed, refused, final code, or out of retries): connect() may start anew. */
  private finish(): void {
    this.established = false;
    this.connecting = null;
  }

  private scheduleReconnect(): void {
    const backoff = this.backoff!;
    const attempt = ++this.attempt;
    const delayMs = backoffDelay(attempt, backoff);
    const gen = this.gen;
    this.emit('reconnecting', { attempt, delayMs });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.fetchToken().then(
        (token) => {
          // Why: close() (and maybe a new connect()) may have happened while the token was fetched.
          if (gen !== this.gen) return;
          this.open(token).then(
            () => this.emit('reconnect', attempt),
            () => {
              // onSocketClosed has already scheduled the next attempt or given up.
            },
          );
        },
        (err: LiveError) => {
          if (gen !== this.gen) return;
          // Why: with no socket there is no close event to drive the next attempt.
          this.emitError(err);
          if (this.attempt < backoff.maxRetries) this.scheduleReconnect();
          else {
            this.emitError(
              new LiveError('RECONNECT_FAILED', `gave up reconnecting after ${backoff.maxRetries} attempts`),
            );
            this.finish();
          }
        },
      );
    }, delayMs);
  }

  private rejectPending(err: LiveError): void {
    const waiters = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiters) w.reject(err);
  }

  private badFrame(message: string): null {
    this.emitError(new LiveError('BAD_FRAME', message));
    return null;
  }

  private emit<K extends keyof LiveClientEvents>(event: K, arg: LiveClientEvents[K]): void {
    this.events.emit(event, arg, (err) =>
      this.emitError(err instanceof Error ? err : new Error(String(err))),
    );
  }

  private emitError(err: Error): void {
    // Why console.error: an error thrown by an 'error' listener has nowhere else to go.
    this.events.emit('error', err, (e) => console.error('LiveClient error listener threw:', e));
  }
}

/**
 * LiveClient, a client of the live protocol (docs/protocol.md) for Node and browsers alike: the
 * WebSocket constructor is passed in, so nothing here is Node-only or needs DOM types.
 */
import { CLOSE, type ControlFrame, type WelcomeFrame } from '@vss/protocol';
import { LiveMessages } from './live-messages.js';
import {
  AckBook,
  CLOSED,
  CONNECTING,
  CloseWaiters,
  Emitter,
  FINAL_CLOSE_CODES,
  OPEN,
  backoffDelay,
  decodeServerFrame,
  encodePublish,
  liveUrl,
  refusal,
  tokenOf,
  transportMessage,
} from './live-internals.js';
import {
  DEFAULT_RECONNECT,
  LiveError,
  type LiveClientEvents,
  type LiveClientOptions,
  type PublishOptions,
  type ReconnectOptions,
  type WebSocketConstructor,
  type WebSocketLike,
} from './live-types.js';

// The public API lives in three files; importers see one module.
export * from './live-types.js';
export { backoffDelay } from './live-internals.js';
/**
 * A client of one live session. Call `connect()`, listen with `on(...)`, publish with `publish`,
 * `publishChat` and `publishDirector`, and `close()` when done. After an unexpected drop it
 * reconnects with backoff and a fresh token (unless `reconnect: false`).
 */
export class LiveClient extends LiveMessages {
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
  private readonly acks = new AckBook();
  private sock: WebSocketLike | null = null;
  private sent = 0;
  private connecting: Promise<WelcomeFrame> | null = null;
  private lastWelcome: WelcomeFrame | null = null;
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
  private readonly closeWaiters = new CloseWaiters<WebSocketLike>();

  constructor(opts: LiveClientOptions) {
    super();
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

  /**
   * Bytes handed to the socket since this client was made, over all its connections (a JSON
   * frame's UTF-16 length, close to its UTF-8 size): with `bufferedAmount`, what a publisher needs
   * to measure its own uplink.
   */
  get bytesSent(): number {
    return this.sent;
  }

  /** Bytes queued on the current socket and not yet sent (0 without one). */
  get bufferedAmount(): number {
    return this.sock?.bufferedAmount ?? 0;
  }

  /** The last welcome frame received (of the current or the latest connection). */
  get welcome(): WelcomeFrame | null {
    return this.lastWelcome;
  }

  /** The full connect URL for a token (values URL-encoded). */
  connectUrl(token: string): string {
    return liveUrl(this.baseUrl, { session: this.session, userId: this.userId, token, format: this.format });
  }

  /**
   * Connects; resolves with the server's first message, the `control`/`welcome` frame. Rejects
   * (LiveError) if the socket closes or fails before it, e.g. `UNAUTHORIZED` on an HTTP 401.
   * A failed first connect is not retried: retrying a refused token would only hide the problem.
   * Calling it again while connected or reconnecting returns the same promise.
   */
  connect(): Promise<WelcomeFrame> {
    if (this.connecting) return this.connecting;
    const gen = ++this.gen;
    this.closing = false;
    this.established = false;
    this.attempt = 0;
    if (this.sock) {
      // Why: a socket still closing after close() must not be mistaken for the new connection;
      // its close event will no longer reach onSocketClosed, so settle its acks here.
      this.sock = null;
      this.acks.rejectAll(new LiveError('CLOSED', 'the client closed the connection before the ack'));
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
    const id = opts.ack ? this.acks.nextId() : undefined;
    let data: string | Uint8Array;
    try {
      data = encodePublish(
        streamType,
        payload,
        opts.binary ?? this.format === 'binary',
        opts.timestampMs,
        id,
        opts.layer,
      );
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    if (!id) return this.send(data);
    // Why register before sending: the ack can never beat the registration, even on a fast loopback.
    const acked = this.acks.wait(id);
    return this.send(data).then(
      () => acked,
      (err: unknown) => {
        this.acks.forget(id);
        throw err;
      },
    );
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
      this.acks.rejectAll(new LiveError('CLOSED', 'the client closed the connection before the ack'));
      this.finish();
      return Promise.resolve();
    }
    const closed = this.closeWaiters.wait(sock);
    sock.close(code, reason);
    return closed;
  }

  protected send(data: string | Uint8Array): Promise<void> {
    const sock = this.sock;
    if (!sock || sock.readyState !== OPEN)
      return Promise.reject(new LiveError('NOT_CONNECTED', 'the live connection is not open'));
    try {
      sock.send(data);
      this.sent += typeof data === 'string' ? data.length : data.byteLength;
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return Promise.resolve();
  }

  private fetchToken(): Promise<string> {
    return tokenOf(this.token);
  }

  /**
   * Opens one socket; resolves with its welcome, rejects when it closes first. Whatever happens
   * after the welcome is handled by the socket's handlers (onSocketClosed decides on reconnecting).
   */
  private open(token: string): Promise<WelcomeFrame> {
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
    return new Promise<WelcomeFrame>((resolve, reject) => {
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
          this.lastWelcome = control as WelcomeFrame; // the server's welcome carries its fields
          resolve(this.lastWelcome);
        } else if (control.event === 'error' && !welcomed) {
          serverError = control;
        }
      };
      sock.onerror = (ev: { message?: unknown; error?: unknown }) => {
        const msg = transportMessage(ev);
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
        this.closeWaiters.release(sock);
      };
    });
  }

  /** Decodes one received frame and emits it; returns it when it is a control frame. */
  private receive(data: unknown): ControlFrame | null {
    const decoded = decodeServerFrame(data);
    if (decoded.kind === 'bad') return this.badFrame(decoded.reason);
    if (decoded.kind === 'message') {
      this.emit('message', decoded.message);
      return null;
    }
    if (decoded.kind === 'ignored') return null;
    const frame = decoded.frame;
    this.acks.answer(frame);
    this.emit('control', frame);
    return frame;
  }

  private onSocketClosed(code: number, reason: string): void {
    // Why: acks are per connection; the server will never answer them on another socket.
    this.acks.rejectAll(new LiveError('CLOSED', `the connection closed (code ${code}) before the ack`, code));
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

/** What LiveClient keeps to itself: ready states, final close codes, a typed emitter, refusals. */
import {
  BINARY_MESSAGE,
  BINARY_PUBLISH,
  CLOSE,
  decodeBinaryFrame,
  encodeBinaryFrame,
  fromBase64,
  LIVE_ERRORS,
  toBase64,
  type ControlFrame,
  type MessageFrame,
  type PublishFrame,
} from '@vss/protocol';
import { LiveError, type LiveMessage, type ReconnectOptions } from './live-types.js';

/** WebSocket ready states. */
export const CONNECTING = 0;
export const OPEN = 1;
export const CLOSED = 3;

/** Server close codes after which reconnecting would be wrong: the server meant it. */
export const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  CLOSE.NORMAL,
  CLOSE.SESSION_ENDED,
  CLOSE.REMOVED,
  CLOSE.REPLACED,
  CLOSE.POLICY_VIOLATION,
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

export type Listener<T> = (arg: T) => void;

/** A minimal typed event emitter; a throwing listener neither stops the others nor the client. */
export class Emitter<E> {
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

export const utf8 = new TextEncoder();

/** Bytes of a received binary WebSocket message (ArrayBuffer in browsers, Buffer or ArrayBuffer in `ws`). */
export function bytesOf(data: unknown): Uint8Array | null {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return null;
}

const UNAUTHORIZED_HINT =
  'the connection token is missing, expired (tokens live 300 s: get a fresh one), forged, issued for ' +
  'another session, or user_id differs from the token’s';

/** The error a connect attempt rejects with when its socket closed before the welcome. */
export function refusal(
  code: number,
  reason: string,
  transport?: string,
  serverError?: ControlFrame,
): LiveError {
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

/** A server frame as LiveClient sees it. */
export type ServerFrame =
  | { kind: 'message'; message: LiveMessage }
  | { kind: 'control'; frame: ControlFrame }
  | { kind: 'bad'; reason: string }
  | { kind: 'ignored' };

/**
 * Decodes one server frame: a JSON `message` or `control` frame, or a binary `message` frame.
 * Unknown JSON frame types are ignored, for forward compatibility.
 */
export function decodeServerFrame(data: unknown): ServerFrame {
  if (typeof data !== 'string') {
    const bytes = bytesOf(data);
    if (!bytes) return { kind: 'bad', reason: 'unsupported WebSocket message data' };
    let frame;
    try {
      frame = decodeBinaryFrame(bytes);
    } catch (err) {
      return { kind: 'bad', reason: `undecodable binary frame: ${(err as Error).message}` };
    }
    if (frame.kind !== BINARY_MESSAGE)
      return { kind: 'bad', reason: 'unexpected binary publish frame from the server' };
    return {
      kind: 'message',
      message: {
        streamType: frame.streamType,
        timestampMs: frame.timestampMs,
        seq: frame.seq ?? 0,
        payload: frame.payload,
      },
    };
  }
  let frame: MessageFrame | ControlFrame;
  try {
    frame = JSON.parse(data) as MessageFrame | ControlFrame;
  } catch {
    return { kind: 'bad', reason: 'server text frame is not JSON' };
  }
  if (frame?.type === 'message') {
    let payload: Uint8Array;
    try {
      payload = fromBase64(frame.body);
    } catch {
      return { kind: 'bad', reason: 'message body is not base64' };
    }
    return {
      kind: 'message',
      message: { streamType: frame.stream_type, timestampMs: frame.timestamp_ms, seq: frame.seq, payload },
    };
  }
  if (frame?.type !== 'control') return { kind: 'ignored' };
  return { kind: 'control', frame };
}

/** The acks awaited on the current socket, by publish id. */
export class AckBook {
  private readonly prefix = Math.random().toString(36).slice(2, 10);
  private count = 0;
  private readonly waiting = new Map<
    string,
    { resolve: (seq: number) => void; reject: (err: Error) => void }
  >();

  /** A publish id unique to this client. */
  nextId(): string {
    return `${this.prefix}-${++this.count}`;
  }

  /** Waits for the ack (its seq) or the refusal of publish `id`. */
  wait(id: string): Promise<number> {
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }

  /** Settles publish `id` with its seq, or with the server's refusal. */
  settle(id: string, outcome: number | Error): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    if (typeof outcome === 'number') w.resolve(outcome);
    else w.reject(outcome);
  }

  /** Stops waiting for publish `id` (it was never sent). */
  forget(id: string): void {
    this.waiting.delete(id);
  }

  /** Settles the publish a control frame answers: `ack` with its seq, `error` with the refusal. */
  answer(frame: ControlFrame): void {
    const d = (frame.data ?? {}) as { id?: unknown; seq?: unknown; code?: unknown; message?: unknown };
    if (typeof d.id !== 'string') return;
    // An ack without a seq answers a reduced layer: relayed, not recorded.
    if (frame.event === 'ack') this.settle(d.id, typeof d.seq === 'number' ? d.seq : -1);
    else if (frame.event === 'error')
      this.settle(
        d.id,
        new LiveError(
          String(d.code ?? LIVE_ERRORS.SERVER_ERROR),
          String(d.message ?? 'refused by the server'),
        ),
      );
  }

  /** Rejects every ack still awaited (the socket closed: none will come). */
  rejectAll(err: Error): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of all) w.reject(err);
  }
}

/** A publish as sent: a binary frame, or a JSON frame with the payload in base64. */
export function encodePublish(
  streamType: string,
  payload: Uint8Array,
  binary: boolean,
  timestampMs: number | undefined,
  id: string | undefined,
  layer = 0,
): string | Uint8Array {
  if (binary)
    return encodeBinaryFrame({
      kind: BINARY_PUBLISH,
      streamType,
      // Why Date.now(): the binary header has no "absent" timestamp, unlike JSON's optional field.
      timestampMs: timestampMs ?? Date.now(),
      ...(id ? { id } : {}),
      ...(layer ? { layer } : {}),
      payload,
    });
  const frame: PublishFrame = { type: 'publish', stream_type: streamType, body: toBase64(payload) };
  if (timestampMs !== undefined) frame.timestamp_ms = timestampMs;
  if (layer) frame.layer = layer as PublishFrame['layer'];
  if (id) frame.id = id;
  return JSON.stringify(frame);
}

/** What a WebSocket error event says (browsers say nothing; `ws` gives an Error). */
export function transportMessage(ev: { message?: unknown; error?: unknown }): string | undefined {
  if (typeof ev.message === 'string') return ev.message;
  return ev.error instanceof Error ? ev.error.message : undefined;
}

/** The `/ws` URL of a connection (values URL-encoded). */
export function liveUrl(
  base: string,
  c: { session: string; userId: string; token: string; format: 'json' | 'binary' },
): string {
  const q = `session=${encodeURIComponent(c.session)}&access_token=${encodeURIComponent(c.token)}&user_id=${encodeURIComponent(c.userId)}`;
  return `${base}/ws?${q}${c.format === 'binary' ? '&format=binary' : ''}`;
}

/** The connection token: the string given, or what the token function returns (TOKEN when it fails). */
export async function tokenOf(token: string | (() => string | Promise<string>)): Promise<string> {
  try {
    return typeof token === 'function' ? await token() : token;
  } catch (err) {
    throw new LiveError(
      'TOKEN',
      `the token function failed: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** Who waits for the close of which socket (closes the client asked for). */
export class CloseWaiters<S> {
  private readonly waiting = new Map<S, (() => void)[]>();

  /** Resolves once `release(socket)` is called. */
  wait(socket: S): Promise<void> {
    return new Promise((resolve) => this.waiting.set(socket, [...(this.waiting.get(socket) ?? []), resolve]));
  }

  has(socket: S): boolean {
    return this.waiting.has(socket);
  }

  /** The socket has closed: everyone waiting for it goes on. */
  release(socket: S): void {
    const waiters = this.waiting.get(socket) ?? [];
    this.waiting.delete(socket);
    for (const fn of waiters) fn();
  }
}

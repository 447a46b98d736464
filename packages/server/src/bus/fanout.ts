import { Redis } from 'ioredis';

/** What crosses processes for one live session: a recorded message or a control signal. */
export interface FanoutMessage {
  kind: 'message' | 'control';
  /** the connection that caused it (its own process skips it when delivering) */
  fromConn: string;
  streamType?: string;
  timestampMs: number;
  seq?: number;
  /** a media message's video layer (absent: 0) */
  layer?: number;
  event?: string;
  userId?: string;
  data?: Record<string, unknown>;
  /** message payload bytes */
  payload?: Buffer;
}

type Handler = (message: FanoutMessage) => void;

/**
 * Live fan-out between server processes, one channel per session. In process by default; through
 * Redis pub/sub when several processes serve one session. `publish` reaches every other process's
 * subscribers of the session (a process never receives its own messages back: it delivers those
 * itself, at once).
 */
export interface Fanout {
  publish(sessionId: string, message: FanoutMessage): void;
  /**
   * Subscribes this process to a session; the first local member subscribes, the last leaves.
   * The pseudo-session `system` carries process-wide notices (key revocations, jobs enqueued).
   * Never rejects: while the transport is down the handler stays registered, and the
   * subscription is made when it is back (readiness reports the outage meanwhile).
   */
  subscribe(sessionId: string, handler: Handler): Promise<() => void>;
  /** Resolves when the transport answers (Redis: PING on both connections); for readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Single-process fan-out: nothing to cross. */
export function memoryFanout(): Fanout {
  return {
    publish: () => {},
    subscribe: async () => () => {},
    ping: async () => {},
    close: async () => {},
  };
}

/**
 * Encodes a message for the wire: uint32 length of a JSON header, the header, then the payload.
 * The node id in the header lets a process drop its own echoes.
 */
function encode(nodeId: string, m: FanoutMessage): Buffer {
  const { payload, ...meta } = m;
  const header = Buffer.from(JSON.stringify({ ...meta, node: nodeId }), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(header.length);
  return Buffer.concat([len, header, payload ?? Buffer.alloc(0)]);
}

function decode(buf: Buffer): { node: string; message: FanoutMessage } {
  const len = buf.readUInt32BE(0);
  const header = JSON.parse(buf.subarray(4, 4 + len).toString('utf8')) as FanoutMessage & { node: string };
  const { node, ...meta } = header;
  const payload = buf.subarray(4 + len);
  return { node, message: { ...meta, ...(meta.kind === 'message' ? { payload } : {}) } };
}

/** Fan-out through Redis pub/sub: channel `vss:live:<session>`, binary messages tagged with the node id. */
export function redisFanout(url: string, nodeId: string): Fanout {
  const pub = new Redis(url, { maxRetriesPerRequest: 2 });
  const sub = new Redis(url, { maxRetriesPerRequest: 2 });
  pub.on('error', () => {});
  sub.on('error', () => {});
  const handlers = new Map<string, Set<Handler>>();
  const channel = (sessionId: string) => `vss:live:${sessionId}`;
  // On every (re)connection, every channel with a handler is subscribed: ioredis restores only the
  // subscriptions Redis had confirmed, and one asked for while Redis was unreachable never was.
  sub.on('ready', () => {
    const channels = [...handlers.keys()].map(channel);
    if (channels.length) sub.subscribe(...channels).catch(() => {});
  });

  sub.on('messageBuffer', (ch: Buffer, data: Buffer) => {
    const sessionId = ch.toString().slice('vss:live:'.length);
    const set = handlers.get(sessionId);
    if (!set) return;
    const { node, message } = decode(data);
    if (node === nodeId) return;
    for (const h of set) h(message);
  });

  return {
    publish(sessionId, message) {
      pub.publish(channel(sessionId), encode(nodeId, message)).catch(() => {});
    },
    async subscribe(sessionId, handler) {
      let set = handlers.get(sessionId);
      const first = !set;
      if (!set) {
        set = new Set();
        handlers.set(sessionId, set);
      }
      set.add(handler);
      // Redis unreachable: subscribed again from the 'ready' handler once it answers.
      if (first) await sub.subscribe(channel(sessionId)).catch(() => {});
      return () => {
        const s = handlers.get(sessionId);
        if (!s) return;
        s.delete(handler);
        if (s.size === 0) {
          handlers.delete(sessionId);
          sub.unsubscribe(channel(sessionId)).catch(() => {});
        }
      };
    },
    async ping() {
      // The subscriber connection is in subscriber mode, where PING is still allowed.
      await Promise.all([pub.ping(), sub.ping()]);
    },
    async close() {
      await Promise.allSettled([pub.quit(), sub.quit()]);
    },
  };
}

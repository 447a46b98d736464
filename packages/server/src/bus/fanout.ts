import type { ControlEvent } from '@vss/protocol';
import { Redis } from 'ioredis';

/** What every message between processes carries. */
interface Routed {
  /** the connection that caused it (its own process skips it when delivering; '' for none) */
  fromConn: string;
  timestampMs: number;
}

/** A recorded or relayed message (media, chat, the director's commands), for the members. */
export interface FanoutMedia extends Routed {
  kind: 'message';
  streamType: string;
  seq?: number;
  /** a media message's video layer (absent: 0) */
  layer?: number;
  /** message payload bytes */
  payload: Buffer;
}

/** A control frame for the session's clients, as the live protocol defines it. */
export interface FanoutControl extends Routed {
  kind: 'control';
  event: ControlEvent;
  userId: string;
  data: Record<string, unknown>;
}

/**
 * A signal between processes about one participant, never sent to a client as such: `redacted`
 * (refuse their media here too), `replace` (a newer connection of theirs joined elsewhere: close
 * this process's one), `remove` (the host removed them: close theirs here).
 */
export interface FanoutInternal extends Routed {
  kind: 'internal';
  event: InternalEvent;
  userId: string;
}
const INTERNAL_EVENTS = ['redacted', 'replace', 'remove'] as const;
export type InternalEvent = (typeof INTERNAL_EVENTS)[number];
const isInternal = (event: string | undefined): boolean => INTERNAL_EVENTS.some((e) => e === event);

/** What crosses processes for one live session. */
export type FanoutMessage = FanoutMedia | FanoutControl | FanoutInternal;

type Handler = (message: FanoutMessage) => void;

/**
 * The process-wide notices, each with what it carries. They travel on the fan-out's system
 * channel, never a session's: `key.revoked` (every process evicts the key from its cache) and
 * `jobs.queued` (workers look for due jobs now instead of at their next poll).
 */
export interface SystemNotices {
  'key.revoked': { keyId: string };
  'jobs.queued': object;
}
export type SystemNotice = {
  [K in keyof SystemNotices]: { name: K } & SystemNotices[K];
}[keyof SystemNotices];

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
   * Never rejects: while the transport is down the handler stays registered, and the
   * subscription is made when it is back (readiness reports the outage meanwhile).
   */
  subscribe(sessionId: string, handler: Handler): Promise<() => void>;
  /** Tells every other process a process-wide notice, on the system channel. */
  notify(notice: SystemNotice): void;
  /**
   * Listens to the system channel; like `subscribe`, never rejects, and the subscription is made
   * again whenever the transport comes back.
   */
  onNotice(handler: (notice: SystemNotice) => void): Promise<() => void>;
  /** Resolves when the transport answers (Redis: PING on both connections); for readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Single-process fan-out: nothing to cross. */
export function memoryFanout(): Fanout {
  return {
    publish: () => {},
    subscribe: async () => () => {},
    notify: () => {},
    onNotice: async () => () => {},
    ping: async () => {},
    close: async () => {},
  };
}

/**
 * Encodes a message for the wire: uint32 length of a JSON header, the header, then the payload.
 * The node id in the header lets a process drop its own echoes. An internal signal goes out as a
 * `control` header, as it always has: processes of two versions, side by side during a rolling
 * deploy, still understand each other.
 */
function encode(nodeId: string, m: FanoutMessage): Buffer {
  const meta =
    m.kind === 'message'
      ? { ...m, payload: undefined }
      : m.kind === 'internal'
        ? { ...m, kind: 'control' }
        : m;
  const header = Buffer.from(JSON.stringify({ ...meta, node: nodeId }), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(header.length);
  return Buffer.concat([len, header, m.kind === 'message' ? m.payload : Buffer.alloc(0)]);
}

function decode(buf: Buffer): { node: string; message: FanoutMessage } {
  const len = buf.readUInt32BE(0);
  const header = JSON.parse(buf.subarray(4, 4 + len).toString('utf8')) as Record<string, unknown> & {
    node: string;
    kind: string;
    event?: string;
  };
  const { node, ...meta } = header;
  if (meta.kind === 'message')
    return { node, message: { ...meta, payload: buf.subarray(4 + len) } as FanoutMedia };
  if (isInternal(meta.event)) return { node, message: { ...meta, kind: 'internal' } as FanoutInternal };
  return { node, message: { data: {}, ...meta } as FanoutControl };
}

/**
 * Fan-out through Redis pub/sub: a channel per session (`<prefix>live:<session>`, binary messages
 * tagged with the node id) and the system channel (`<prefix>system`, JSON notices tagged the same way).
 */
export function redisFanout(url: string, prefix: string, nodeId: string): Fanout {
  // A publish or a ping not answered within a second fails: nothing waits on a Redis that is away.
  const pub = new Redis(url, { maxRetriesPerRequest: 2, commandTimeout: 1000 });
  const sub = new Redis(url, { maxRetriesPerRequest: 2 });
  pub.on('error', () => {});
  sub.on('error', () => {});
  /** every Redis channel this process listens to, with its listeners of the raw messages */
  const listeners = new Map<string, Set<(data: Buffer) => void>>();
  const sessionChannel = (sessionId: string) => `${prefix}live:${sessionId}`;
  const SYSTEM = `${prefix}system`;
  // On every (re)connection, every channel with a listener is subscribed: ioredis restores only the
  // subscriptions Redis had confirmed, and one asked for while Redis was unreachable never was.
  sub.on('ready', () => {
    const channels = [...listeners.keys()];
    if (channels.length) sub.subscribe(...channels).catch(() => {});
  });
  sub.on('messageBuffer', (ch: Buffer, data: Buffer) => {
    for (const l of listeners.get(ch.toString()) ?? []) l(data);
  });

  async function listen(channel: string, listener: (data: Buffer) => void): Promise<() => void> {
    let set = listeners.get(channel);
    const first = !set;
    if (!set) {
      set = new Set();
      listeners.set(channel, set);
    }
    set.add(listener);
    // Redis unreachable: subscribed again from the 'ready' handler once it answers.
    if (first) await sub.subscribe(channel).catch(() => {});
    return () => {
      const s = listeners.get(channel);
      if (!s) return;
      s.delete(listener);
      if (s.size === 0) {
        listeners.delete(channel);
        sub.unsubscribe(channel).catch(() => {});
      }
    };
  }

  return {
    publish(sessionId, message) {
      pub.publish(sessionChannel(sessionId), encode(nodeId, message)).catch(() => {});
    },
    subscribe(sessionId, handler) {
      return listen(sessionChannel(sessionId), (data) => {
        const { node, message } = decode(data);
        if (node !== nodeId) handler(message);
      });
    },
    notify(notice) {
      pub.publish(SYSTEM, JSON.stringify({ node: nodeId, notice })).catch(() => {});
    },
    onNotice(handler) {
      return listen(SYSTEM, (data) => {
        const { node, notice } = JSON.parse(data.toString('utf8')) as { node: string; notice: SystemNotice };
        if (node !== nodeId) handler(notice);
      });
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

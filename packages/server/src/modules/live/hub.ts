import { LIVE_ERRORS, mediaProblem, parseMediaStream, type TrackKind } from '@vss/client';
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../../bus/events.js';
import type { Fanout, FanoutMessage } from '../../bus/fanout.js';
import { transaction } from '../../db/transaction.js';
import type { Db, SessionsTable } from '../../db/types.js';
import { newId } from '../../lib/ids.js';
import type { StreamWriter } from '../../streams/writer.js';
import { IngestBudget } from './budget.js';
import { presentSession } from '../sessions/service.js';
import { envelopeBytes } from './envelope.js';
import { controlText, messageBinary, messageText } from './frames.js';
import type { Sequencer } from './sequencer.js';

/** Chat texts are at most 4000 characters (decisions §6). */
export const MAX_CHAT_CHARS = 4000;
/** Presence rows are refreshed this often; a row this stale belongs to a process that died. */
export const HEARTBEAT_MS = 10_000;
const STALE_MS = 3 * HEARTBEAT_MS;

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

/** A publish as it arrives from a client, JSON or binary alike. */
export interface IncomingPublish {
  streamType: string;
  timestampMs?: number;
  payload: Buffer;
  id?: string;
  /** size of the WebSocket message that carried it */
  wireBytes: number;
}

interface Member {
  conn: LiveConnection;
  tracks: Set<TrackKind>;
}

interface LiveSession {
  session: SessionsTable;
  orgId: string;
  /** participants whose media was redacted: their further media is refused */
  redacted: Set<string>;
  members: Map<string, Member>;
  unsubscribe: () => void;
  /** Serialises seq assignment and batching per session, so that seq follows arrival order. */
  chain: Promise<unknown>;
}

/** A refusal sent to the publisher as a `control`/`error` message. */
class Refusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Owns the live sessions of this process and their members: joins and leaves, the session
 * lifecycle (started on the first join, ended once the last participant has been gone long
 * enough, decided once across processes by conditional updates), the timeline, publishing
 * (checked, sequenced, batched for writing, then fanned out) and delivery to local members.
 * The WebSocket route only translates between sockets and this class.
 */
export class SessionHub {
  private readonly sessions = new Map<string, LiveSession>();
  private readonly pendingEnds = new Map<string, NodeJS.Timeout>();
  private readonly loading = new Map<string, Promise<LiveSession>>();
  /** The session of each local connection: every publish looks its session up, without a scan. */
  private readonly byConn = new Map<string, LiveSession>();
  private readonly heartbeat: NodeJS.Timeout;
  /** since start: media frames not sent to slow receivers, messages published, publisher pauses */
  readonly stats = { dropped: 0, published: 0, pauses: 0 };
  /** received media not yet durable (see IngestBudget) */
  readonly ingest: IngestBudget;

  constructor(
    private readonly deps: {
      db: Db;
      bus: EventBus;
      fanout: Fanout;
      sequencer: Sequencer;
      writer: StreamWriter;
      nodeId: string;
      departureTimeoutMs: number;
      /** bytes of received media this process holds before publishers are paused (default 64 MiB) */
      ingestLimitBytes?: number;
      log: FastifyBaseLogger;
    },
  ) {
    this.ingest = new IngestBudget(deps.ingestLimitBytes ?? 64 * 1024 * 1024);
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private sockets: () => Iterable<{ terminate(): void }> = () => [];

  /** Lets the hub reach the raw sockets (to drop them all, as a network cut would: tests, drills). */
  attachSockets(list: () => Iterable<{ terminate(): void }>): void {
    this.sockets = list;
  }

  /** Drops every WebSocket of this process without a close handshake. */
  dropAllSockets(): void {
    for (const s of this.sockets()) s.terminate();
  }

  /** Number of live connections in this process. */
  get connectionCount(): number {
    let n = 0;
    for (const s of this.sessions.values()) n += s.members.size;
    return n;
  }

  /**
   * The live state of a session, created once. Concurrent joins to an idle session share one load:
   * without this map each would create its own state and one participant would be orphaned.
   */
  private load(session: SessionsTable, orgId: string): Promise<LiveSession> {
    const existing = this.sessions.get(session.id);
    if (existing) return Promise.resolve(existing);
    let pending = this.loading.get(session.id);
    if (!pending) {
      pending = (async () => {
        const redacted = await this.deps.db
          .selectFrom('redactions')
          .select('user_id')
          .where('session_id', '=', session.id)
          .execute();
        const live: LiveSession = {
          session,
          orgId,
          redacted: new Set(redacted.map((r) => r.user_id)),
          members: new Map(),
          unsubscribe: () => {},
          chain: Promise.resolve(),
        };
        live.unsubscribe = await this.deps.fanout.subscribe(session.id, (m) => this.deliverRemote(live, m));
        this.sessions.set(session.id, live);
        return live;
      })().finally(() => this.loading.delete(session.id));
      this.loading.set(session.id, pending);
    }
    return pending;
  }

  /** Adds a connection to its session: presence, lifecycle, timeline, welcome and join signals. */
  async join(conn: LiveConnection, session: SessionsTable, orgId: string): Promise<void> {
    const { db } = this.deps;
    const now = Date.now();
    const pending = this.pendingEnds.get(session.id);
    if (pending) clearTimeout(pending);
    this.pendingEnds.delete(session.id);

    const live = await this.load(session, orgId);
    live.members.set(conn.id, {
      conn,
      tracks: new Set(),
    });
    this.byConn.set(conn.id, live);

    await db
      .insertInto('session_members')
      .values({
        conn_id: conn.id,
        session_id: session.id,
        user_id: conn.userId,
        node_id: this.deps.nodeId,
        joined_at: now,
        heartbeat_at: now,
        left_at: null,
      })
      .execute();

    // The first join anywhere starts the session; the conditional update lets exactly one process win.
    // The conditional update lets exactly one process win the start; its event commits with it.
    const won = await transaction(db, async (trx) => {
      const started = await trx
        .updateTable('sessions')
        .set({ started_at: now })
        .where('id', '=', session.id)
        .where('started_at', 'is', null)
        .executeTakeFirst();
      if (Number(started.numUpdatedRows) === 0) return false;
      await this.deps.bus.publish(trx, {
        id: newId(),
        type: 'session.started',
        at: now,
        orgId,
        projectId: session.project_id,
        sessionId: session.id,
        data: presentSession({ ...session, started_at: now }),
      });
      return true;
    });
    if (won) {
      live.session = { ...live.session, started_at: now };
      await this.timeline(live, 'session.started', 'system', {}, now);
    }
    await this.timeline(live, 'participant.joined', conn.userId, { user_id: conn.userId }, now);

    const present = await db
      .selectFrom('session_members')
      .select('user_id')
      .distinct()
      .where('session_id', '=', session.id)
      .where('left_at', 'is', null)
      .where('heartbeat_at', '>', now - STALE_MS)
      .execute();
    const participants = present.map((p) => p.user_id);
    conn.sendText(
      controlText('welcome', conn.userId, now, {
        session_id: session.id,
        user_id: conn.userId,
        mode: 'live',
        participants,
      }),
      false,
    );
    this.control(live, conn.id, 'join', conn.userId, {}, now);
  }

  /** Removes a connection: its tracks end, the others are told, and the end of the session is scheduled. */
  async leave(conn: LiveConnection): Promise<void> {
    const live = this.findByConn(conn.id);
    if (!live) return;
    const member = live.members.get(conn.id)!;
    live.members.delete(conn.id);
    this.byConn.delete(conn.id);
    const now = Date.now();
    for (const kind of member.tracks) await this.endTrack(live, conn, kind, now);
    await this.timeline(live, 'participant.left', conn.userId, { user_id: conn.userId }, now);
    this.control(live, conn.id, 'leave', conn.userId, {}, now);
    await this.deps.db
      .updateTable('session_members')
      .set({ left_at: now })
      .where('conn_id', '=', conn.id)
      .execute();

    if (live.members.size === 0) {
      this.sessions.delete(live.session.id);
      live.unsubscribe();
      this.scheduleEnd(live.session.id);
    }
  }

  /** Accepts, records and fans out one published message; refusals go back as `error` controls. */
  async publish(conn: LiveConnection, msg: IncomingPublish): Promise<void> {
    const live = this.findByConn(conn.id);
    if (!live) return;
    const member = live.members.get(conn.id)!;
    // Held from here until durable, or refused.
    const bytes = msg.payload.length;
    this.ingest.take(bytes);
    let held = true;
    const release = () => {
      if (held) this.ingest.give(bytes);
      held = false;
    };
    try {
      const { streamId, body, ts, isMedia } = this.check(live, member, msg);
      const run = live.chain.then(async () => {
        if (isMedia) {
          const kind = parseMediaStream(streamId)!.kind;
          if (!member.tracks.has(kind)) {
            member.tracks.add(kind);
            await this.record(
              live.session.id,
              'track.published',
              conn.userId,
              { user_id: conn.userId, kind, stream_id: streamId },
              ts,
            );
            this.control(live, conn.id, 'track.published', conn.userId, { kind, stream_type: streamId }, ts);
          }
        }
        const seq = await this.deps.sequencer.next(live.session.id);
        const durable = this.deps.writer.append({ sessionId: live.session.id, seq, streamId, ts, body });
        this.stats.published += 1;
        const out: FanoutMessage = {
          kind: 'message',
          fromConn: conn.id,
          streamType: streamId,
          timestampMs: ts,
          seq,
          payload: body,
        };
        this.deliverLocal(live, out);
        this.deps.fanout.publish(live.session.id, out);
        return { seq, durable };
      });
      live.chain = run.catch(() => {});
      const { seq, durable } = await run;
      durable.then(release, release);
      if (msg.id !== undefined) {
        await durable;
        this.sendControl(conn, 'ack', conn.userId, { id: msg.id, seq });
      }
    } catch (err) {
      release();
      const refusal =
        err instanceof Refusal
          ? err
          : new Refusal(LIVE_ERRORS.SERVER_ERROR, 'the message could not be recorded');
      if (!(err instanceof Refusal)) this.deps.log.error({ err }, 'publish failed');
      this.sendControl(conn, 'error', conn.userId, {
        code: refusal.code,
        message: refusal.message,
        ...(msg.id !== undefined ? { id: msg.id } : {}),
      });
    }
  }

  /** Ends a media track of the connection. */
  async unpublish(conn: LiveConnection, streamType: string): Promise<void> {
    const live = this.findByConn(conn.id);
    const member = live?.members.get(conn.id);
    const media = parseMediaStream(streamType);
    if (!live || !member || !media || media.userId !== conn.userId || !member.tracks.has(media.kind)) {
      this.sendControl(conn, 'error', conn.userId, {
        code: LIVE_ERRORS.BAD_MESSAGE,
        message: `no published track ${streamType}`,
      });
      return;
    }
    member.tracks.delete(media.kind);
    await this.endTrack(live, conn, media.kind, Date.now());
  }

  /** Records the end of a track in the timeline and tells the others. */
  private async endTrack(
    live: LiveSession,
    conn: LiveConnection,
    kind: TrackKind,
    ts: number,
  ): Promise<void> {
    const streamId = `media/${conn.userId}/${kind}`;
    await this.timeline(
      live,
      'track.unpublished',
      conn.userId,
      { user_id: conn.userId, kind, stream_id: streamId },
      ts,
    );
    this.control(live, conn.id, 'track.unpublished', conn.userId, { kind, stream_type: streamId }, ts);
  }

  /** Validates a publish; returns what to record. */
  private check(
    live: LiveSession,
    member: Member,
    msg: IncomingPublish,
  ): { streamId: string; body: Buffer; ts: number; isMedia: boolean } {
    const userId = member.conn.userId;
    // Size and rate were admitted by the gateway (wire-limits.ts, message-guard.ts).
    const now = Date.now();
    const ts = msg.timestampMs ?? now;
    if (!Number.isSafeInteger(ts) || ts < 0)
      throw new Refusal(LIVE_ERRORS.BAD_MESSAGE, 'timestamp_ms must be a non-negative integer');

    const media = parseMediaStream(msg.streamType);
    if (media) {
      if (media.userId !== userId)
        throw new Refusal(LIVE_ERRORS.FORBIDDEN_STREAM, 'media may be published only under your own user_id');
      if (live.redacted.has(userId))
        throw new Refusal(LIVE_ERRORS.REDACTED, 'your media was redacted from this session');
      const problem = mediaProblem(media.kind, msg.payload);
      if (problem) throw new Refusal(LIVE_ERRORS.BAD_CODEC, problem);
      return { streamId: msg.streamType, body: msg.payload, ts, isMedia: true };
    }
    if (msg.streamType === 'chat') {
      const data = parseJson(msg.payload);
      if (!data || typeof data.text !== 'string' || data.text.length === 0)
        throw new Refusal(LIVE_ERRORS.BAD_MESSAGE, 'a chat payload is JSON { "text": "…" }');
      if (data.text.length > MAX_CHAT_CHARS)
        throw new Refusal(LIVE_ERRORS.TOO_LARGE, `chat text is limited to ${MAX_CHAT_CHARS} characters`);
      return {
        streamId: 'chat',
        body: envelopeBytes('chat.message', ts, userId, { text: data.text }),
        ts,
        isMedia: false,
      };
    }
    if (msg.streamType === 'director') {
      const cmd = parseJson(msg.payload);
      const data = cmd?.data as Record<string, unknown> | undefined;
      if (cmd?.type === 'director.layout' && (data?.layout === 'grid' || data?.layout === 'presenter'))
        return {
          streamId: 'director',
          body: envelopeBytes('director.layout', ts, userId, { layout: data.layout }),
          ts,
          isMedia: false,
        };
      if (cmd?.type === 'director.focus' && typeof data?.user_id === 'string' && data.user_id.length > 0)
        return {
          streamId: 'director',
          body: envelopeBytes('director.focus', ts, userId, { user_id: data.user_id }),
          ts,
          isMedia: false,
        };
      throw new Refusal(
        LIVE_ERRORS.BAD_MESSAGE,
        'a director payload is { "type": "director.layout", "data": { "layout": "grid"|"presenter" } } or { "type": "director.focus", "data": { "user_id" } }',
      );
    }
    throw new Refusal(
      LIVE_ERRORS.FORBIDDEN_STREAM,
      `cannot publish to "${msg.streamType}": use media/<your user_id>/cam|mic|screen, chat or director`,
    );
  }

  /** Appends a timeline event to the `events` stream, in turn with the session's other messages. */
  private async timeline(
    live: LiveSession,
    type: string,
    actor: string,
    data: Record<string, unknown>,
    ts: number,
  ): Promise<void> {
    const run = live.chain.then(() => this.record(live.session.id, type, actor, data, ts));
    live.chain = run.catch(() => {});
    await run;
  }

  /**
   * Sequences a timeline event and queues it for writing. Callers already inside the session's
   * chain use this directly: chaining again from inside the chain would wait on itself.
   */
  private async record(
    sessionId: string,
    type: string,
    actor: string,
    data: Record<string, unknown>,
    ts: number,
  ): Promise<void> {
    const seq = await this.deps.sequencer.next(sessionId);
    const durable = this.deps.writer.append({
      sessionId,
      seq,
      streamId: 'events',
      ts,
      body: envelopeBytes(type, ts, actor, data),
    });
    durable.catch((err) => this.deps.log.error({ err }, 'timeline write failed'));
  }

  /** Sends a control signal to every other member, here and in other processes. */
  private control(
    live: LiveSession,
    fromConn: string,
    event: string,
    userId: string,
    data: Record<string, unknown>,
    ts: number,
  ): void {
    const m: FanoutMessage = { kind: 'control', fromConn, event, userId, data, timestampMs: ts };
    this.deliverLocal(live, m);
    this.deps.fanout.publish(live.session.id, m);
  }

  private sendControl(
    conn: LiveConnection,
    event: string,
    userId: string,
    data: Record<string, unknown>,
  ): void {
    conn.sendText(controlText(event, userId, Date.now(), data), false);
  }

  /**
   * Delivers to this process's members except the sender. Each representation (JSON text,
   * binary frame) is built at most once and the same bytes go to every receiver.
   */
  private deliverLocal(live: LiveSession, m: FanoutMessage): void {
    // The text is encoded to UTF-8 once here: handed a string, ws would encode it again per receiver.
    let text: Buffer | undefined;
    let binary: Buffer | undefined;
    const isMedia = m.kind === 'message' && m.streamType!.startsWith('media/');
    for (const [id, member] of live.members) {
      if (id === m.fromConn) continue;
      const conn = member.conn;
      if (isMedia && conn.binary) {
        binary ??= binaryMessage(m);
        conn.sendBinary(binary);
      } else {
        text ??= Buffer.from(textFrame(m), 'utf8');
        conn.sendText(text, isMedia);
      }
    }
  }

  private deliverRemote(live: LiveSession, m: FanoutMessage): void {
    // Another process redacted a participant: refuse their media here too. Not for clients.
    if (m.kind === 'control' && m.event === 'redacted') {
      live.redacted.add(m.userId!);
      return;
    }
    this.deliverLocal(live, m);
  }

  /** Refuses a participant's further media in this session, in every process. */
  redact(sessionId: string, userId: string): void {
    this.sessions.get(sessionId)?.redacted.add(userId);
    this.deps.fanout.publish(sessionId, {
      kind: 'control',
      fromConn: '',
      event: 'redacted',
      userId,
      timestampMs: Date.now(),
    });
  }

  /** Appends a timeline event from outside a live connection (redaction, recording.ready). */
  async appendTimeline(
    sessionId: string,
    type: string,
    actor: string,
    data: Record<string, unknown>,
    ts = Date.now(),
  ): Promise<void> {
    const live = this.sessions.get(sessionId);
    if (live) await this.timeline(live, type, actor, data, ts);
    else await this.record(sessionId, type, actor, data, ts);
    await this.deps.writer.flush();
  }

  private findByConn(connId: string): LiveSession | undefined {
    return this.byConn.get(connId);
  }

  /** Schedules the end check for when the departure timeout will have passed. */
  private scheduleEnd(sessionId: string): void {
    const existing = this.pendingEnds.get(sessionId);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.pendingEnds.delete(sessionId);
      void this.tryEnd(sessionId).catch((err) => this.deps.log.error({ err }, 'ending the session failed'));
    }, this.deps.departureTimeoutMs + 50);
    timer.unref();
    this.pendingEnds.set(sessionId, timer);
  }

  /**
   * Ends the session when nobody is present in any process and the last departure is older than
   * the timeout; exactly one process wins the conditional update and announces the end.
   */
  async tryEnd(sessionId: string): Promise<boolean> {
    const { db } = this.deps;
    const now = Date.now();
    const cutoff = now - this.deps.departureTimeoutMs;
    // The end and its `session.ended` event commit together, or neither does.
    const ended = await transaction(db, async (trx) => {
      const res = await trx
        .updateTable('sessions')
        .set({ ended_at: now })
        .where('id', '=', sessionId)
        .where('started_at', 'is not', null)
        .where('ended_at', 'is', null)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('session_members')
                .select(sql`1`.as('one'))
                .where('session_members.session_id', '=', sessionId)
                .where((eb) =>
                  eb.or([
                    eb.and([eb('left_at', 'is', null), eb('heartbeat_at', '>', now - STALE_MS)]),
                    eb(sql`coalesce(left_at, heartbeat_at)`, '>', cutoff),
                  ]),
                ),
            ),
          ),
        )
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) return false;
      const row = await trx
        .selectFrom('sessions')
        .innerJoin('projects', 'projects.id', 'sessions.project_id')
        .selectAll('sessions')
        .select('projects.org_id')
        .where('sessions.id', '=', sessionId)
        .executeTakeFirstOrThrow();
      const { org_id, ...session } = row;
      await this.deps.bus.publish(trx, {
        id: newId(),
        type: 'session.ended',
        at: now,
        orgId: org_id,
        projectId: session.project_id,
        sessionId,
        data: presentSession(session),
      });
      return true;
    });
    if (!ended) return false;
    await this.record(sessionId, 'session.ended', 'system', {}, now);
    await this.deps.writer.flush();
    this.deps.sequencer.forget(sessionId);
    return true;
  }

  /** Refreshes this process's presence rows, and ends sessions whose participants all went away. */
  private async beat(): Promise<void> {
    const { db } = this.deps;
    const now = Date.now();
    try {
      await db
        .updateTable('session_members')
        .set({ heartbeat_at: now })
        .where('node_id', '=', this.deps.nodeId)
        .where('left_at', 'is', null)
        .execute();
      // Sessions left behind by a process that died: nobody present anywhere, not yet ended.
      const orphans = await db
        .selectFrom('sessions')
        .select('id')
        .where('started_at', 'is not', null)
        .where('ended_at', 'is', null)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('session_members')
                .select(sql`1`.as('one'))
                .whereRef('session_members.session_id', '=', 'sessions.id')
                .where('left_at', 'is', null)
                .where('heartbeat_at', '>', now - STALE_MS),
            ),
          ),
        )
        .limit(100)
        .execute();
      for (const o of orphans) if (!this.sessions.has(o.id)) await this.tryEnd(o.id);
    } catch (err) {
      this.deps.log.warn({ err }, 'presence heartbeat failed');
    }
  }

  /** Closes every connection (1001) and writes what is pending; on shutdown. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    for (const t of this.pendingEnds.values()) clearTimeout(t);
    const all = [...this.sessions.values()].flatMap((s) => [...s.members.values()].map((m) => m.conn));
    for (const conn of all) await this.leave(conn).catch(() => {});
    for (const conn of all) conn.close(1001, 'server shutting down');
    await this.deps.writer.flush();
  }
}

function parseJson(bytes: Buffer): Record<string, unknown> | null {
  try {
    const v = JSON.parse(bytes.toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function textFrame(m: FanoutMessage): string {
  if (m.kind === 'control') return controlText(m.event!, m.userId!, m.timestampMs, m.data ?? {});
  return messageText(m.streamType!, m.timestampMs, m.seq!, m.payload!);
}

function binaryMessage(m: FanoutMessage): Buffer {
  return messageBinary(m.streamType!, m.timestampMs, m.seq ?? 0, m.payload!);
}

import { parseMediaStream } from '@vss/protocol';
import type { EventBus } from '../../bus/events.js';
import type { Config } from '../../config.js';
import type { Db, SessionsTable, Trx } from '../../db/types.js';
import { ApiError, NotFound, Unauthorized } from '../../http/errors.js';
import type { Principal } from '../../http/principal.js';
import { decodeCursor } from '../../http/pagination.js';
import { newId } from '../../lib/ids.js';
import { hmacHex, randomToken } from '../../lib/secrets.js';
import { iso, now, MINUTE_MS } from '../../lib/time.js';
import { SegmentCorruptError } from '../../streams/segments.js';
import type { StreamStat, StreamStore } from '../../streams/store.js';
import type { RecordingsStore } from './store.js';
import type { StreamWriter } from '../../streams/writer.js';
import type { LiveEvents } from '../live/service.js';
import { ChunkWriter } from './json-chunks.js';
import { recordingBounds } from './bounds.js';
import { buildManifest } from './manifest.js';
import type { SessionsService } from '../sessions/service.js';

/** What `recording.ready` carries. */
export interface RecordingReadyData {
  /** from the first recorded event to the last */
  duration_ms: number;
  stream_count: number;
  /** bytes of the recorded events */
  bytes: number;
}

declare module '../../bus/events.js' {
  interface DomainEvents {
    /** an ended session's streams are all durably written */
    'recording.ready': RecordingReadyData;
  }
}

/** An answer holds at most this many events, or this many payload bytes. */
export const MAX_WINDOW_EVENTS = 5000;
/**
 * An answer's payload cap. Its time is its bytes': an 8 MiB answer (11 MB of JSON) took 39 ms at
 * the median and 60 ms at p99 on a 2-core machine, and even the same bytes served from memory by a
 * bare node:http server took 47 ms at p99; at 4 MiB a window's answers stay under 50 ms at p99, and
 * a reader following next_base_seq reads as fast.
 */
export const MAX_WINDOW_BYTES = 4 * 1024 * 1024;
export const DEFAULT_LINK_MINUTES = 1440;

const sessionNotFound = () => new NotFound('session not found');

/**
 * Recordings: manifest, timeline metadata, playback windows, the timeline, public and
 * replay-link access, redaction, and `recording.ready` once a session has ended.
 */
export function recordingsService(deps: {
  config: Config;
  db: Db;
  bus: EventBus;
  /** the recorded streams */
  streams: StreamStore;
  store: RecordingsStore;
  writer: StreamWriter;
  /** the live sessions' timelines and redaction */
  live: LiveEvents;
  sessions: SessionsService;
  /** records the session's stored bytes after they changed (billing) */
  storageChanged: (sessionId: string) => Promise<void>;
}) {
  const { db, streams, store } = deps;
  const derived: Derived[] = [];
  const linkHash = (token: string) => hmacHex(deps.config.keys.tokens, `replay:${token}`);

  /** The session a request may read: through its credential, or (none given) only when public. */
  async function readable(principal: Principal | null, sessionId: string): Promise<SessionsTable> {
    if (principal) return deps.sessions.get(principal, sessionId);
    const s = await deps.sessions.findPublic(sessionId);
    if (!s) throw new Unauthorized('missing credential: this session is not public');
    return s;
  }

  /** A public session, else 404 (never revealing whether a private one exists). */
  async function publicSession(sessionId: string): Promise<SessionsTable> {
    const s = await deps.sessions.findPublic(sessionId);
    if (!s) throw sessionNotFound();
    return s;
  }

  const bounds = (sessionId: string, stats: StreamStat[], ended: number | null, fallback: number) =>
    recordingBounds(streams, sessionId, stats, ended, fallback);

  const manifest = (session: SessionsTable) =>
    buildManifest(streams, session, (id) => deps.live.displayNames(id));

  /** The `events` stream as envelopes with their seq, in order. */
  async function timelineOf(session: SessionsTable) {
    const out: Array<{
      seq: number;
      v: number;
      type: string;
      ts: number;
      actor: string;
      data: Record<string, unknown>;
    }> = [];
    for await (const e of streams.read(session.id, { streamId: 'events' }))
      out.push({ seq: e.seq, ...JSON.parse(e.body.toString('utf8')) });
    return out;
  }

  async function timelineMeta(session: SessionsTable) {
    const stats = await streams.stats(session.id);
    // The participants the manifest lists: those with recorded media (a redacted one has none).
    const mediaUsers = new Set(stats.map((s) => parseMediaStream(s.streamId)?.userId).filter(Boolean));
    return {
      participant_count: mediaUsers.size,
      stream_ids: stats.map((s) => s.streamId),
      total_events_estimated: stats.reduce((n, s) => n + s.events, 0),
      min_ts: stats.length ? Math.min(...stats.map((s) => s.minTs)) : 0,
      max_ts: stats.length ? Math.max(...stats.map((s) => s.maxTs)) : 0,
    };
  }

  /**
   * One playback answer. Time is cut into windows [from_ts + k·W, from_ts + (k+1)·W). An answer
   * starts at base_seq (without it, at the first event stamped from from_ts on) and returns, in seq
   * order, the events stamped from from_ts on through the last one of the window its first event
   * is stamped in, capped at 5000 events or 4 MiB: an event that arrived late (stamped in an earlier
   * window) or early (stamped in a later one) comes in its place in seq order. next_base_seq is the
   * next such event not returned; following it, from_ts unchanged, returns every event from
   * from_ts on exactly once, in seq order.
   * The answer's JSON is produced as it is read, in Buffers of CHUNK_BYTES: the envelope's fields
   * after `events` are only known at the end, and no whole answer is ever held in memory.
   */
  async function* window(
    sessionId: string,
    fromTs: number,
    windowSize: number,
    baseSeq: number | undefined,
  ): AsyncGenerator<Buffer> {
    const first = await streams.firstFrom(sessionId, baseSeq ?? 0, fromTs);
    if (!first) {
      yield Buffer.from(
        `{"data":{"events":[],"base_seq":${baseSeq ?? 0},"next_base_seq":null},"error":null}\n`,
      );
      return;
    }
    const lo = fromTs + Math.floor((first.ts - fromTs) / windowSize) * windowSize;
    const hi = lo + windowSize;
    const out = new ChunkWriter();
    out.text('{"data":{"events":[');
    let count = 0;
    let bytes = 0;
    let next: number | null = null;
    let lastSeq = first.seq;
    pages: for await (const page of reportDamage(
      streams.slot(sessionId, lo, hi, first.seq, MAX_WINDOW_EVENTS + 1, fromTs),
    )) {
      for (const e of page) {
        if (count >= MAX_WINDOW_EVENTS || (count > 0 && bytes + e.body.length > MAX_WINDOW_BYTES)) {
          next = e.seq;
          break pages;
        }
        lastSeq = e.seq;
        bytes += e.body.length;
        out.text(
          `${count > 0 ? ',' : ''}{"seq":${e.seq},"timestamp_ms":${e.ts},"stream_id":${JSON.stringify(e.streamId)},"body_base64":"`,
        );
        out.latin1(e.body.toString('base64'));
        out.text('"}');
        count += 1;
      }
      yield* out.take();
    }
    next ??= (await streams.firstFrom(sessionId, lastSeq + 1, fromTs))?.seq ?? null;
    // A streamed answer ends with the newline every JSON answer ends with.
    out.text(`],"base_seq":${baseSeq ?? first.seq},"next_base_seq":${next}},"error":null}\n`);
    yield* out.end();
  }

  return {
    readable,
    publicSession,
    manifest,
    timelineMeta,
    window,

    /** The time of the recording's first event (0 when it holds none): where a replay starts by default. */
    async firstTs(sessionId: string): Promise<number> {
      return (await streams.nextTs(sessionId, 0)) ?? 0;
    },

    /** The chat, message by message: time, author and text (null for a redacted message). */
    async chat(principal: Principal, sessionId: string) {
      const session = await deps.sessions.get(principal, sessionId);
      const out: Array<{ seq: number; ts: number; actor: string; text: string | null }> = [];
      for await (const e of streams.read(session.id, { streamId: 'chat' })) {
        const env = JSON.parse(e.body.toString('utf8')) as {
          ts: number;
          actor: string;
          data?: { text?: string | null };
        };
        out.push({ seq: e.seq, ts: env.ts, actor: env.actor, text: env.data?.text ?? null });
      }
      return out;
    },

    /** The `events` stream as envelopes with their seq. */
    async timeline(principal: Principal, sessionId: string) {
      return timelineOf(await deps.sessions.get(principal, sessionId));
    },

    /** The `events` stream of a session already found readable (public, or through a replay link). */
    timelineOf,

    /** A replay link: a random token, kept hashed, valid 1 to 43200 minutes. */
    async createLink(q: Db | Trx, principal: Principal, sessionId: string, minutes = DEFAULT_LINK_MINUTES) {
      const session = await deps.sessions.hosted(principal, sessionId, 'share its replay', { q });
      const token = randomToken(32);
      const t = now();
      const expires = t + minutes * MINUTE_MS;
      const id = newId();
      await store.insertLink(q, {
        id,
        session_id: session.id,
        project_id: session.project_id,
        token_hash: linkHash(token),
        created_at: t,
        expires_at: expires,
      });
      return {
        id,
        link: `${deps.config.publicBaseUrl}/v1/public/sessions/${session.id}/replay?token=${encodeURIComponent(token)}`,
        token,
        expires_at: iso(expires),
      };
    },

    /** A page of a session's replay links (+1 row, for `paginate`), newest first; never a token. */
    async listLinks(principal: Principal, sessionId: string, limit: number, cursor: string | undefined) {
      const session = await deps.sessions.get(principal, sessionId);
      return store.links(session.id, limit + 1, decodeCursor(cursor));
    },

    /** Revokes one replay link of a session; 404 when the session has no such link. */
    async revokeLink(principal: Principal, sessionId: string, linkId: string) {
      const session = await deps.sessions.hosted(principal, sessionId, 'revoke its replay links');
      if (!(await store.deleteLink(session.id, linkId))) throw new NotFound('replay link not found');
      return { id: linkId, deleted: true as const };
    },

    async revokeLinks(principal: Principal, sessionId: string) {
      const session = await deps.sessions.hosted(principal, sessionId, 'revoke its replay links');
      return { session_id: session.id, revoked: await store.deleteLinks(session.id) };
    },

    /** The session a replay-link token (or, without one, public visibility) opens. */
    async replayable(sessionId: string, token: string | undefined): Promise<SessionsTable> {
      if (token === undefined) return publicSession(sessionId);
      const link = await store.linkByHash(linkHash(token));
      if (!link || link.session_id !== sessionId || link.expires_at <= now())
        throw new Unauthorized('the replay link is invalid, revoked or expired');
      const s = await deps.sessions.findAny(sessionId);
      if (!s) throw sessionNotFound();
      return s;
    },

    /**
     * Deletes every media stream of a participant (the bytes, not a flag), optionally replaces
     * their chat bodies with a redaction marker, refuses their further media, and records
     * `participant.redacted`.
     */
    async redact(principal: Principal, sessionId: string, userId: string, includeChat: boolean) {
      const session = await deps.sessions.hosted(principal, sessionId, 'redact a participant');
      const theirs = (await streams.stats(session.id))
        .map((s) => s.streamId)
        .filter((id) => parseMediaStream(id)?.userId === userId);
      if (theirs.length === 0) throw new NotFound('this participant published no media in the session');
      await store.insertRedaction(session.id, userId, now());
      deps.live.redact(session.id, userId);
      // Whatever of theirs is still queued is written first, so that the delete removes it too.
      await deps.writer.flush();
      await streams.deleteStreams(session.id, theirs);
      // After the delete: a render that starts from now on cannot see them; any before it is withdrawn.
      await inTurn(derived.map((d) => () => d.redacted(session.id, userId)));
      let chatRedacted = 0;
      if (includeChat) {
        const mine: Array<{ seq: number; ts: number }> = [];
        for await (const e of streams.read(session.id, { streamId: 'chat' })) {
          const env = JSON.parse(e.body.toString('utf8')) as { actor?: string };
          if (env.actor === userId) mine.push({ seq: e.seq, ts: e.ts });
        }
        for (const m of mine) {
          const marker = {
            v: 1,
            type: 'chat.message',
            ts: m.ts,
            actor: userId,
            data: { text: null, redacted: true },
          };
          await streams.replaceBody(session.id, m.seq, Buffer.from(JSON.stringify(marker), 'utf8'));
        }
        chatRedacted = mine.length;
      }
      await deps.live.appendTimeline(session.id, 'participant.redacted', 'system', {
        user_id: userId,
        streams: theirs,
        chat_messages_redacted: chatRedacted,
      });
      // An ended session's recording was sealed: what the redaction appended is sealed (and stored)
      // too, rather than left open until the next start.
      if (session.ended_at !== null) await deps.writer.seal(session.id);
      await deps.storageChanged(session.id);
      return { redacted: userId, deletedStreams: theirs.length };
    },

    /**
     * Registers what another module makes from recordings (export files, storyboards), to be
     * withdrawn after a redaction and deleted with its session. Called in the order registered,
     * each whatever happened to the ones before (what still shows a redacted person must go even
     * when something else failed); the first failure is then thrown.
     */
    keepsDerived(d: Derived): void {
      derived.push(d);
    },

    /** Deletes a session that is not live, then everything recorded for it and its exports. */
    async deleteSession(principal: Principal, sessionId: string) {
      const deleted = await deps.sessions.delete(principal, sessionId);
      await inTurn(derived.map((d) => () => d.deleted(sessionId)));
      await streams.deleteSession(sessionId);
      await store.deleteOfSession(sessionId);
      await deps.live.forgetSession(sessionId);
      await deps.storageChanged(sessionId);
      return deleted;
    },

    /** Announces `recording.ready` once an ended session's streams are all durably written. */
    async finalize(sessionId: string, orgId: string, projectId: string): Promise<void> {
      const exists = () => deps.sessions.findAny(sessionId);
      // Deleted before its recording was announced: there is nothing to announce.
      if (!(await exists())) return;
      await deps.writer.flush();
      const stats = await streams.stats(sessionId);
      const { start, end } = await bounds(sessionId, stats, Date.now(), 0);
      const data = {
        duration_ms: end - start,
        stream_count: stats.length,
        bytes: stats.reduce((n, s) => n + s.bytes, 0),
      };
      await deps.live.appendTimeline(sessionId, 'recording.ready', 'system', data);
      if (!(await exists())) {
        // Deleted meanwhile: take back the timeline event written after the delete.
        await streams.deleteSession(sessionId);
        return;
      }
      await deps.bus.emit(db, 'recording.ready', {
        orgId,
        projectId,
        sessionId,
        data,
      });
    },
  };
}
export type RecordingsService = ReturnType<typeof recordingsService>;

/** Something made from a session's recording, kept by another module. */
export interface Derived {
  /** the session is deleted: delete what was made of it */
  deleted(sessionId: string): Promise<unknown>;
  /** a participant was redacted from the session: withdraw or remake what shows them */
  redacted(sessionId: string, userId: string): Promise<unknown>;
}

/** Runs each step after the one before, whether or not it failed; the first failure is thrown. */
async function inTurn(steps: Array<() => Promise<unknown>>): Promise<void> {
  let failure: { err: unknown } | null = null;
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      failure ??= { err };
    }
  }
  if (failure) throw failure.err;
}

/**
 * The events of a read, with a body that fails its checksum reported as a 500 naming the damaged
 * event (never served, and never hidden behind "internal server error": the operator must know).
 */
async function* reportDamage<T>(events: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    yield* events;
  } catch (err) {
    if (err instanceof SegmentCorruptError) throw new ApiError(500, 'SERVER_ERROR', err.message);
    throw err;
  }
}

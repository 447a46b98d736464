import { CLOSE, LIVE_ERRORS, type ControlEvent } from '@vss/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../../bus/events.js';
import type { Metrics } from '../../lib/metrics.js';
import type { Fanout, FanoutControl, FanoutMessage } from '../../bus/fanout.js';
import type { Db, SessionsTable } from '../../db/types.js';
import type { StreamWriter } from '../../streams/writer.js';
import { IngestBudget } from './budget.js';
import { Timeline } from './timeline.js';
import type { Sequencer } from './sequencer.js';
import type { LiveConnection, LiveSession } from './connection.js';
import { deliver, sendControl, sendError } from './delivery.js';
import { KeyframeRouter, receiverHooks } from './keyframes.js';
import { relayLayer } from './relay.js';
import { SessionRegistry } from './registry.js';
import { InFlight, sendAway } from './drain.js';
import { liveStats, type LiveStats } from './stats.js';
import { acceptPublish, mustBeInSession, Refusal, type IncomingPublish } from './publish-rules.js';
import { liveStore, type LiveStore } from './store.js';
import { SessionEnding } from './ending.js';
import { OneConnectionPerUser } from './identity.js';
import { StorageBudget, type Allowance } from './storage-budget.js';
import { SessionLifecycle } from './lifecycle.js';
import { isRemovedSince } from './removal.js';
import type { ConnectionMeter } from './service.js';
import { sequence, recordingData, fromRecordingData, type Pipeline } from './recording.js';
import { hostsOf, recordingStore, stores, type RecordingState } from './recording-control.js';
import { endTrack, unpublish } from './tracks.js';
import { announceJoin, publishParticipant, shownName, type Announcing } from './participants.js';

/**
 * Owns the live sessions of this process and their members: joins and leaves, the session
 * lifecycle (started on the first join, ended once the last participant has been gone long
 * enough, decided once across processes by conditional updates), the timeline, publishing
 * (checked, sequenced, batched for writing, then fanned out) and delivery to local members.
 * The WebSocket route only translates between sockets and this class.
 */
export class SessionHub {
  private readonly registry: SessionRegistry;
  private readonly sessions: Map<string, LiveSession>;
  private readonly byConn: Map<string, LiveSession>;
  readonly keyframes: KeyframeRouter;
  private readonly identity: OneConnectionPerUser;
  private readonly storage: StorageBudget;
  private readonly ending: SessionEnding;
  /** since start, counted as they happen (the metrics read them when scraped) */
  readonly stats: LiveStats = liveStats();
  /** set by drain(): no more joins or publishes are taken */
  draining = false;
  private readonly inFlight = new InFlight();
  /** received media not yet durable (see IngestBudget) */
  readonly ingest: IngestBudget;
  private readonly store: LiveStore;
  private readonly lifecycle: SessionLifecycle;
  private readonly events: Timeline;
  private readonly announcing: Announcing;
  private readonly pipeline: Pipeline;

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
      /** how far a publish's timestamp may be from this server's clock, either way */
      clockSkewMs: number;
      /** bytes of chat and director commands recorded of one session in this process */
      textLimitBytes: number;
      /** what an organisation may store (billing); none: no limit */
      storageAllowance?: Allowance;
      /** told of every live connection's join and leave (streaming minutes) */
      meter?: ConnectionMeter;
      log: FastifyBaseLogger;
      /** observes acknowledgement latency */
      metrics?: Metrics | null;
    },
  ) {
    this.ingest = new IngestBudget(deps.ingestLimitBytes ?? 64 * 1024 * 1024);
    this.store = liveStore(deps.db);
    this.storage = new StorageBudget(deps.storageAllowance ?? null);
    this.registry = new SessionRegistry({
      ...deps,
      store: this.store,
      recordings: recordingStore(deps.db),
      storage: this.storage,
      onRemote: (live, m) => this.deliverRemote(live, m),
    });
    this.sessions = this.registry.sessions;
    this.byConn = this.registry.byConn;
    this.keyframes = new KeyframeRouter(deps.fanout);
    this.lifecycle = new SessionLifecycle(deps.db, this.store, deps.bus);
    this.events = new Timeline(deps);
    this.identity = new OneConnectionPerUser({ ...deps, store: this.store, leave: (c) => this.leave(c) });
    const control = this.control.bind(this);
    this.pipeline = { ...deps, events: this.events, stats: this.stats, control };
    this.announcing = {
      ...deps,
      store: this.store,
      lifecycle: this.lifecycle,
      events: this.events,
      control,
    };
    this.ending = new SessionEnding({
      ...deps,
      lifecycle: this.lifecycle,
      store: this.store,
      events: this.events,
      isLocal: (id) => this.sessions.has(id),
    });
  }

  private sockets: () => Iterable<{ terminate(): void }> = () => [];
  /** Lets the hub reach the raw sockets (to drop them all, as a network cut would: tests, drills). */
  attachSockets(list: () => Iterable<{ terminate(): void }>): void {
    this.sockets = list;
  }

  /** Drops every WebSocket of this process without a close handshake. */
  dropAllSockets = (): void => [...this.sockets()].forEach((s) => s.terminate());

  /** Sessions with a live connection in this process. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Number of live connections in this process. */
  get connectionCount(): number {
    return this.byConn.size;
  }

  /** Every live connection of this process (the metrics read their pacers). */
  connections = (): LiveConnection[] => this.registry.allConnections();

  /** What a receiver's pacer needs of its session, before the join (see receiverHooks). */
  receiving = (sessionId: string) => receiverHooks(sessionId, this.registry, this.keyframes);

  /** A receiver asks for a key frame of a publisher's track (`{"type":"keyframe"}`). */
  receiverKeyFrame(conn: LiveConnection, publisher: string, track: string): void {
    const live = this.byConn.get(conn.id);
    if (!live) return;
    const chosen = conn.pacer?.chooser.layerOf(`${publisher}/${track}`) ?? 0;
    const refused = this.keyframes.fromReceiver(live, conn, publisher, track, chosen);
    if (refused) sendError(conn, refused.code, refused.message);
  }

  /**
   * Adds a connection to its session: presence, lifecycle, timeline, welcome and join signals,
   * after the user's older connection, in any process, was replaced (OneConnectionPerUser, which
   * runs one user's joins one at a time). Rejects when storage fails: `conn` is then no member.
   */
  join(conn: LiveConnection, session: SessionsTable, orgId: string): Promise<void> {
    return this.identity.oneAtATime(session.id, conn.userId, async () => {
      this.ending.cancel(session.id);
      const live = await this.registry.load(session, orgId);
      // Held while the older connection leaves: its leave may empty the room for a moment, and the
      // room must stay the one everyone after joins (a dropped one would split the session in two).
      const release = this.registry.hold(live);
      try {
        await this.identity.replaceOlder(live, conn);
      } finally {
        release();
      }
      live.members.set(conn.id, { conn, tracks: new Set(), text: live.text.rate() });
      this.byConn.set(conn.id, live);
      try {
        await announceJoin(this.announcing, live, conn, session, orgId);
      } catch (err) {
        // Why: a member that storage never recorded would receive and publish unseen; and its
        // presence row, if it was written, would be heartbeated as present for ever.
        live.members.delete(conn.id);
        this.byConn.delete(conn.id);
        await this.store.markLeft(conn.id, Date.now()).catch(() => {});
        if (live.members.size === 0) this.registry.drop(live);
        throw err;
      }
      // A removal that came while this connection was joining (after its token was checked, before
      // it was a member here) missed it: checked again now that any removal from here on reaches it.
      if (await isRemovedSince(this.deps.db, session.id, conn.userId, conn.issuedAt ?? 0))
        await this.identity.sendAwayHere(live, conn.userId, 'removed');
    });
  }

  /** Removes a connection: its tracks end, the others are told, and the end of the session is scheduled. */
  async leave(conn: LiveConnection): Promise<void> {
    const live = this.byConn.get(conn.id);
    if (!live) return;
    const member = live.members.get(conn.id)!;
    live.members.delete(conn.id);
    this.byConn.delete(conn.id);
    const now = Date.now();
    this.deps.meter?.left(conn.id, now);
    for (const kind of member.tracks) await endTrack(this.pipeline, live, conn, kind, now);
    const left = { user_id: conn.userId, display_name: shownName(conn) };
    await this.events.append(live, 'participant.left', conn.userId, left, now);
    await publishParticipant(this.deps, 'participant.left', live, conn, now);
    this.control(live, conn.id, 'leave', conn.userId, {}, now);
    await this.store.markLeft(conn.id, now);

    if (live.members.size === 0 && !this.registry.held(live)) {
      this.registry.drop(live);
      this.ending.schedule(live.session.id);
      if (![...this.sessions.values()].some((s) => s.orgId === live.orgId)) this.storage.forget(live.orgId);
    }
  }

  /** Accepts, records and fans out one published message; refusals go back as `error` controls. */
  async publish(conn: LiveConnection, msg: IncomingPublish): Promise<void> {
    // Before the lookup: a connection being sent away has already left, and is still answered.
    if (this.draining)
      return sendError(
        conn,
        LIVE_ERRORS.UNAVAILABLE,
        'the server is restarting: publish it again once reconnected',
        msg.id,
      );
    const live = this.byConn.get(conn.id);
    if (!live) return this.identity.refuseIfAway(conn, msg.id);
    const member = live.members.get(conn.id)!;
    const received = this.deps.metrics ? performance.now() : 0;
    this.inFlight.enter();
    // Held from here until durable, or refused.
    const release = this.ingest.hold(msg.payload.length);
    try {
      // What the recording rules and a pause leave out is relayed, not stored: it takes no storage.
      const stored = stores(live.recording, conn.userId, msg.streamType, hostsOf(live));
      const may = {
        now: Date.now(),
        skewMs: this.deps.clockSkewMs,
        store: (n: number) => !stored || this.storage.take(live.orgId, n),
        relay: () => !stored || this.storage.open(live.orgId),
        textRate: (n: number) => member.text.take(n),
        storeText: (n: number) => !stored || (live.text.take(n) && this.storage.take(live.orgId, n)),
      };
      const accepted = acceptPublish(conn, live.redacted, msg, may);
      if (accepted.focus !== undefined) await mustBeInSession(this.store, live, accepted.focus);
      const tooLarge =
        accepted.isMedia && live.rates.sizeProblem(accepted.streamId, msg.layer ?? 0, msg.payload);
      if (tooLarge) throw new Refusal(LIVE_ERRORS.BAD_LAYER, tooLarge);
      if (msg.layer)
        return await relayLayer(live, conn, { ...msg, ...accepted }, this.deps.fanout, this.stats);
      const recorded = stored && !accepted.unrecorded;
      const { seq, durable } = await sequence(this.pipeline, live, conn, member, accepted, recorded);
      durable.then(release, release);
      if (msg.id !== undefined) {
        await durable;
        sendControl(conn, 'ack', conn.userId, { id: msg.id, seq, ...(recorded ? {} : { recorded: false }) });
        this.deps.metrics?.ackLatency.observe((performance.now() - received) / 1000);
      }
    } catch (err) {
      release();
      const refusal =
        err instanceof Refusal
          ? err
          : new Refusal(LIVE_ERRORS.SERVER_ERROR, 'the message could not be recorded');
      if (!(err instanceof Refusal)) this.deps.log.error({ err }, 'publish failed');
      sendError(conn, refusal.code, refusal.message, msg.id);
    } finally {
      this.inFlight.leave();
    }
  }

  /** Ends a media track of the connection, in the session's order (see tracks.ts). */
  async unpublish(conn: LiveConnection, streamType: string): Promise<void> {
    const live = this.byConn.get(conn.id);
    if (!live) return sendError(conn, LIVE_ERRORS.BAD_MESSAGE, `no published track ${streamType}`);
    await unpublish(this.pipeline, live, conn, streamType);
  }

  /** Sends a control signal to every other member, here and in other processes. */
  private control(
    live: LiveSession,
    fromConn: string,
    event: ControlEvent,
    userId: string,
    data: Record<string, unknown>,
    ts: number,
  ): void {
    const m: FanoutControl = { kind: 'control', fromConn, event, userId, data, timestampMs: ts };
    deliver(live.members.values(), m);
    this.deps.fanout.publish(live.session.id, m);
  }

  private deliverRemote(live: LiveSession, m: FanoutMessage): void {
    if (m.kind === 'internal') {
      switch (m.event) {
        case 'redacted':
          // Another process redacted a participant: refuse their media here too.
          return void live.redacted.add(m.userId);
        case 'replace':
          // A newer connection of this user joined in another process: this process's one goes.
          return void this.identity.sendAwayHere(live, m.userId, 'replaced');
        case 'remove':
          // A participant was removed (in whichever process the request came): their connections here go.
          return void this.identity.sendAwayHere(live, m.userId, 'removed');
      }
    }
    // A key-frame request for a publisher: for its connection alone, if it is here.
    if (m.kind === 'control' && m.event === 'keyframe') return this.keyframes.onRemote(live, m);
    // What the session records changed (told by the process that took the request): here too.
    if (m.kind === 'control' && m.event === 'recording') live.recording = fromRecordingData(m.data);
    deliver(live.members.values(), m, live.rates);
  }

  /**
   * What a session records changed: applied here at once (to what is published from now on), and
   * told to its participants (`control` `recording`) here and, through the fan-out, everywhere.
   */
  recordingChanged(sessionId: string, state: RecordingState, ts: number, hosts: readonly string[]): void {
    const live = this.sessions.get(sessionId);
    if (live) live.recording = state;
    const m: FanoutControl = {
      kind: 'control',
      fromConn: '',
      event: 'recording',
      userId: 'system',
      data: recordingData(state, hosts),
      timestampMs: ts,
    };
    if (live) deliver(live.members.values(), m);
    this.deps.fanout.publish(sessionId, m);
  }

  /** Forgets the presence rows and recording rules of a deleted session. */
  async forgetSession(sessionId: string): Promise<void> {
    await this.store.deleteMembers(sessionId);
    await recordingStore(this.deps.db).forget(sessionId);
  }

  displayNames = (sessionId: string): Promise<Map<string, string>> => this.store.displayNames(sessionId);

  /** Refuses a participant's further media in this session, in every process. */
  redact(sessionId: string, userId: string): void {
    this.sessions.get(sessionId)?.redacted.add(userId);
    this.deps.fanout.publish(sessionId, {
      kind: 'internal',
      fromConn: '',
      event: 'redacted',
      userId,
      timestampMs: Date.now(),
    });
  }

  /**
   * Closes a participant's connections (`removed`, then 4403), here and in every other process;
   * resolves once those of this process have left.
   */
  async remove(sessionId: string, userId: string): Promise<void> {
    this.deps.fanout.publish(sessionId, {
      kind: 'internal',
      fromConn: '',
      event: 'remove',
      userId,
      timestampMs: Date.now(),
    });
    const live = this.sessions.get(sessionId);
    if (live) await this.identity.sendAwayHere(live, userId, 'removed');
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
    if (live) await this.events.append(live, type, actor, data, ts);
    else await this.events.record(sessionId, type, actor, data, ts);
    await this.deps.writer.flush();
  }

  /**
   * The first step of a graceful stop (SIGTERM): joins and publishes are refused from now on
   * (UNAVAILABLE); publishes already taken are acked once durable, or refused; then everyone is told
   * to `reconnect`, leaves, and closes with 1001, to land on another server. Resolves once all are
   * sent away, or at `deadline` (epoch ms) with what is left to close().
   */
  async drain(deadline: number): Promise<void> {
    this.draining = true;
    await this.inFlight.settled(deadline);
    const all = this.registry.allConnections();
    await sendAway(all, (conn) => this.leave(conn), deadline, this.deps.log);
    await this.deps.writer.flush();
  }

  /** Closes every connection (1001) and writes what is pending; on shutdown. */
  async close(): Promise<void> {
    this.ending.stop();
    const all = this.registry.allConnections();
    for (const conn of all) await this.leave(conn).catch(() => {});
    for (const conn of all) conn.close(CLOSE.GOING_AWAY, 'server shutting down');
    await this.deps.writer.flush();
  }
}

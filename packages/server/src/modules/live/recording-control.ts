import { parseMediaStream } from '@vss/protocol';
import type { Db, SessionsTable } from '../../db/types.js';
import { Conflict } from '../../http/errors.js';
import type { Principal } from '../../http/principal.js';
import { isRecorded, sessionHosts, type RecordingRule, type RuleKind } from '../../lib/recording.js';

/** The hosts of a live session, whom a `host` rule matches. */
export const hostsOf = (live: { session: Pick<SessionsTable, 'created_by'> }): string[] =>
  sessionHosts(live.session.created_by);
import type { SessionsService } from '../sessions/service.js';

/** What a session records right now. */
export interface RecordingState {
  paused: boolean;
  rules: RecordingRule[];
}

/** The state of a session nobody changed: everything recorded. */
export const RECORD_ALL: RecordingState = { paused: false, rules: [] };

/** What participants are told (`welcome`, `control` `recording`). */
export const stateName = (s: RecordingState): 'paused' | 'recording' => (s.paused ? 'paused' : 'recording');

/**
 * Whether a message on `streamId` from `userId` is stored under `state`: nothing while paused but
 * the timeline (written by the server, not through here); media and chat as the rules say (`hosts`:
 * the session's, whom a `host` rule matches); the director commands a participant sends as the
 * rules that name no kind say (a rule that leaves a participant out, or everyone, leaves out their
 * director commands too).
 */
export function stores(
  state: RecordingState,
  userId: string,
  streamId: string,
  hosts: readonly string[],
): boolean {
  if (state.paused) return false;
  if (state.rules.length === 0) return true;
  const media = parseMediaStream(streamId);
  const kind: RuleKind | null = media ? media.kind : streamId === 'chat' ? 'chat' : null;
  if (kind !== null) return isRecorded(state.rules, userId, kind, hosts);
  // No kind names the director stream: only the rules for all of a participant's streams apply.
  return isRecorded(
    state.rules.filter((r) => r.kind === undefined),
    userId,
    'chat',
    hosts,
  );
}

/** The table of the sessions whose state was changed (a session without a row records all). */
export function recordingStore(db: Db) {
  return {
    async get(sessionId: string): Promise<RecordingState & { pausedAt: number | null }> {
      const row = await db
        .selectFrom('recording_controls')
        .selectAll()
        .where('session_id', '=', sessionId)
        .executeTakeFirst();
      if (!row) return { ...RECORD_ALL, pausedAt: null };
      return { paused: row.paused_at !== null, pausedAt: row.paused_at, rules: JSON.parse(row.rules) };
    },

    async put(sessionId: string, rules: RecordingRule[], pausedAt: number | null, at: number) {
      const values = { rules: JSON.stringify(rules), paused_at: pausedAt, updated_at: at };
      await db
        .insertInto('recording_controls')
        .values({ session_id: sessionId, ...values })
        .onConflict((oc) => oc.column('session_id').doUpdateSet(values))
        .execute();
    },

    /**
     * Pauses (`paused` true) or resumes, only if it is not already so: false when another request
     * got there first, so that two pauses never both record `recording.paused`.
     */
    async switchPause(sessionId: string, pausedAt: number | null, at: number): Promise<boolean> {
      const pausing = pausedAt !== null;
      if (pausing) {
        await db
          .insertInto('recording_controls')
          .values({ session_id: sessionId, rules: '[]', paused_at: null, updated_at: at })
          .onConflict((oc) => oc.column('session_id').doNothing())
          .execute();
      }
      const res = await db
        .updateTable('recording_controls')
        .set({ paused_at: pausedAt, updated_at: at })
        .where('session_id', '=', sessionId)
        .where('paused_at', pausing ? 'is' : 'is not', null)
        .executeTakeFirst();
      return Number(res.numUpdatedRows) === 1;
    },

    async forget(sessionId: string): Promise<void> {
      await db.deleteFrom('recording_controls').where('session_id', '=', sessionId).execute();
    },
  };
}
export type RecordingStore = ReturnType<typeof recordingStore>;

/** The hub's side of a change: its live members and those of other processes are told. */
export interface RecordingSwitch {
  recordingChanged(sessionId: string, state: RecordingState, ts: number, hosts: readonly string[]): void;
  appendTimeline(
    sessionId: string,
    type: string,
    actor: string,
    data: Record<string, unknown>,
    ts?: number,
  ): Promise<void>;
}

interface Deps {
  store: RecordingStore;
  sessions: SessionsService;
  hub: RecordingSwitch;
  /** where a started session's timeline takes its sequence: refuses (503) while it cannot */
  sequence: { assertAvailable(): Promise<void> };
}

/**
 * Who may change what a session records: those who may run it for everyone (SessionsService.hosted). A
 * started session's change is written to its timeline: refused before anything is changed while
 * that cannot be (Redis away).
 */
async function changeable(deps: Deps, principal: Principal, sessionId: string) {
  const session = await deps.sessions.hosted(principal, sessionId, 'change what it records');
  if (session.started_at !== null) await deps.sequence.assertAvailable();
  return session;
}

const actorOf = (p: Principal) => p.userId ?? p.kind;

/** What the routes answer: the session's rules and whether it is paused. */
function present(sessionId: string, s: RecordingState & { pausedAt: number | null }) {
  return {
    session_id: sessionId,
    state: stateName(s),
    paused_at: s.pausedAt === null ? null : new Date(s.pausedAt).toISOString(),
    rules: s.rules,
  };
}

/**
 * A change is told to the hub (which applies it to the messages it takes from then on) and only
 * then written to the timeline, unless the session has not started: the timeline then begins with
 * the state in force (see `atStart`), so a rule set the day before does not stretch the recording.
 */
async function told(deps: Deps, session: SessionsTable, state: RecordingState, at: number, event?: Event) {
  deps.hub.recordingChanged(session.id, state, at, sessionHosts(session.created_by));
  if (event && session.started_at !== null)
    await deps.hub.appendTimeline(session.id, event.type, event.actor, event.data, at);
}
interface Event {
  type: string;
  actor: string;
  data: Record<string, unknown>;
}

export function recordingControl(deps: Deps) {
  return {
    async get(principal: Principal, sessionId: string) {
      const session = await deps.sessions.get(principal, sessionId);
      return present(session.id, await deps.store.get(session.id));
    },

    /** Replaces the rules; they apply to what is published from now on. */
    async setRules(principal: Principal, sessionId: string, rules: RecordingRule[]) {
      const session = await changeable(deps, principal, sessionId);
      const at = Date.now();
      const before = await deps.store.get(session.id);
      await deps.store.put(session.id, rules, before.pausedAt, at);
      const event = { type: 'recording.rules_changed', actor: actorOf(principal), data: { rules } };
      await told(deps, session, { paused: before.paused, rules }, at, event);
      return present(session.id, { ...before, rules });
    },

    /** Pauses: 409 when the session has ended or is paused already. */
    async pause(principal: Principal, sessionId: string) {
      const session = await changeable(deps, principal, sessionId);
      if (session.ended_at !== null)
        throw new Conflict('the session has ended: there is no recording to pause');
      const at = Date.now();
      if (!(await deps.store.switchPause(session.id, at, at)))
        throw new Conflict('the recording is already paused');
      const now = await deps.store.get(session.id);
      await told(deps, session, now, at, { type: 'recording.paused', actor: actorOf(principal), data: {} });
      return present(session.id, now);
    },

    /** Resumes: 409 when it is not paused. */
    async resume(principal: Principal, sessionId: string) {
      const session = await changeable(deps, principal, sessionId);
      if (session.ended_at !== null) throw new Conflict('the session has ended: there is nothing to resume');
      const before = await deps.store.get(session.id);
      const at = Date.now();
      if (!before.paused || !(await deps.store.switchPause(session.id, null, at)))
        throw new Conflict('the recording is not paused');
      const now = { ...before, paused: false, pausedAt: null };
      const data = { paused_ms: at - before.pausedAt! };
      await told(deps, session, now, at, { type: 'recording.resumed', actor: actorOf(principal), data });
      return present(session.id, now);
    },
  };
}
export type RecordingControl = ReturnType<typeof recordingControl>;

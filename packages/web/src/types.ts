/**
 * The API's resources, as the generated client names them (`Schemas` of `@vss/client`), and the
 * small rules the dashboard reads off them.
 */
import type { Schemas } from '@vss/client';

export type Role = Schemas['Role'];
/** `GET /v1/me`, `GET /v1/auth/session`: the signed-in user */
export type Me = Schemas['User'];
export type Project = Schemas['Project'];
export type Session = Schemas['Session'];
/** `GET /v1/sessions/{id}/manifest`: who published what, and the recording's time span */
export type Manifest = Schemas['Manifest'];
/** One recorded track of a participant (a manifest's). */
export type ManifestTrack = Schemas['ManifestTrack'];

/** A session's state as people speak of it, from `started_at` and `ended_at`. */
export type SessionState = 'created' | 'live' | 'ended';

/** The state of a session, from its timestamps. */
export function sessionState(s: Pick<Session, 'started_at' | 'ended_at'>): SessionState {
  if (s.ended_at) return 'ended';
  return s.started_at ? 'live' : 'created';
}

/**
 * The names a recording's participants joined with, by user_id (`display_name` is the name they
 * last joined with; their user_id when they gave none).
 */
export function manifestNames(m: Pick<Manifest, 'participants'> | undefined): Record<string, string> {
  return Object.fromEntries((m?.participants ?? []).map((p) => [p.user_id, p.display_name || p.user_id]));
}

/** A participant in a list to pick from: their name, and their id too when it says something else. */
export function pickLabel(names: Record<string, string>, userId: string): string {
  const name = names[userId] ?? userId;
  return name === userId ? userId : `${name} (${userId})`;
}

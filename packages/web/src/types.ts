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

/**
 * The people of a list to pick from, by user id, as a person tells them apart: their names, with
 * the id added only to those whose name another in the list shares (an id is no name to read).
 */
export function nameLabels(names: Record<string, string>, userIds: string[]): Record<string, string> {
  const nameOf = (u: string) => names[u] || u;
  const count = new Map<string, number>();
  for (const u of userIds) count.set(nameOf(u), (count.get(nameOf(u)) ?? 0) + 1);
  return Object.fromEntries(
    userIds.map((u) => {
      const name = nameOf(u);
      return [u, (count.get(name) ?? 0) > 1 && name !== u ? `${name} (${u})` : name];
    }),
  );
}

/** A participant in a list to pick from: their name, and their id too when it says something else. */
export function pickLabel(names: Record<string, string>, userId: string): string {
  const name = names[userId] ?? userId;
  return name === userId ? userId : `${name} (${userId})`;
}

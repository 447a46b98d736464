/** The API's resources as the dashboard reads them (the fields it uses). */

export type Role = 'owner' | 'admin' | 'member';

/** `GET /v1/me` */
export interface Me {
  id: string;
  email: string;
  org_id: string;
  role: Role;
  created_at: string;
}

export interface Project {
  id: string;
  name: string;
  org_id: string;
  environment: 'development' | 'staging' | 'production' | null;
  created_at: string;
}

export interface Session {
  id: string;
  project_id: string;
  name: string;
  created_by: string;
  started_at: string | null;
  ended_at: string | null;
  created_at: string;
  is_public: boolean;
}

/** A session's state as people speak of it, from `started_at` and `ended_at`. */
export type SessionState = 'created' | 'live' | 'ended';

/** The state of a session, from its timestamps. */
export function sessionState(s: Pick<Session, 'started_at' | 'ended_at'>): SessionState {
  if (s.ended_at) return 'ended';
  return s.started_at ? 'live' : 'created';
}

/** One recorded track of a participant (a manifest's). */
export interface ManifestTrack {
  kind: 'cam' | 'mic' | 'screen';
  stream_id: string;
  start_ts: number;
  end_ts: number;
}

/** `GET /v1/sessions/{id}/manifest`: who published what, and the recording's time span. */
export interface Manifest {
  version: 1;
  session_id: string;
  epoch: number;
  start_ts: number;
  end_ts: number;
  /** `display_name`: the name they last joined with (their user_id when they gave none) */
  participants: Array<{ user_id: string; display_name?: string; tracks: ManifestTrack[] }>;
  streams: { events: string; chat: string; director: string };
  capabilities: string[];
}

/** The names a recording's participants joined with, by user_id. */
export function manifestNames(m: Pick<Manifest, 'participants'> | undefined): Record<string, string> {
  return Object.fromEntries((m?.participants ?? []).map((p) => [p.user_id, p.display_name || p.user_id]));
}

/** A participant in a list to pick from: their name, and their id too when it says something else. */
export function pickLabel(names: Record<string, string>, userId: string): string {
  const name = names[userId] ?? userId;
  return name === userId ? userId : `${name} (${userId})`;
}

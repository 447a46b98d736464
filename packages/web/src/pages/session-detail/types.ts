/** The sharing and export resources the session page reads (the fields it uses). */

/** `POST /v1/sessions/{id}/replay-links` */
export interface ReplayLink {
  id: string;
  link: string;
  token: string;
  expires_at: string;
}

/** `GET /v1/sessions/{id}/replay-links`: a link as listed, without its token. */
export interface ListedReplayLink {
  id: string;
  session_id: string;
  created_at: string;
  expires_at: string;
}

import type { Format, Layout, Orientation, Resolution } from '../../ui/export-fields';

export type { Format, Layout, Orientation, Resolution };

/** `GET /v1/exports/{jobId}` */
export interface ExportJob {
  job_id: string;
  status: 'queued' | 'processing' | 'completed' | 'failed';
  room_id: string;
  layout: Layout;
  orientation: Orientation;
  focus: string | null;
  /** the spans in which recording was paused are kept (silent, showing names) rather than cut out */
  keep_gaps: boolean;
  format: Format;
  resolution: Resolution;
  /** whether the pictures carry name bars */
  names: boolean;
  /** a clip's start and (exclusive) end, ms since 1970; null: the whole recording */
  from_ts: number | null;
  to_ts: number | null;
  /** made by the project's auto-export */
  auto: boolean;
  progress: number;
  size_bytes: number | null;
  duration_ms: number | null;
  error: string | null;
  created_at: string;
}

/** `GET /v1/sessions/{id}/join-links`: a join link as listed, without its token. */
export interface ListedJoinLink {
  id: string;
  session_id: string;
  expires_at: string;
  /** null: as many times as anyone likes until it expires */
  max_uses: number | null;
  uses: number;
  can_publish: boolean;
  created_at: string;
}

/** `POST /v1/sessions/{id}/join-links`: the new link, with its address (shown this once). */
export interface JoinLink extends ListedJoinLink {
  url: string;
  token: string;
}

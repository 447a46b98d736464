/** The recording and export resources the session page reads (the fields it uses). */

/** One recorded track of a participant (`GET /v1/sessions/{id}/manifest`). */
export interface Track {
  kind: 'cam' | 'mic' | 'screen';
  stream_id: string;
  start_ts: number;
  end_ts: number;
}

/** The layout-agnostic description of what was recorded. */
export interface Manifest {
  session_id: string;
  start_ts: number;
  end_ts: number;
  participants: Array<{ user_id: string; tracks: Track[] }>;
}

/** `POST /v1/sessions/{id}/replay-links` */
export interface ReplayLink {
  link: string;
  token: string;
  expires_at: string;
}

export type Layout = 'grid' | 'presenter';
export type Orientation = 'landscape' | 'vertical';

/** `GET /v1/exports/{jobId}` */
export interface ExportJob {
  job_id: string;
  status: 'queued' | 'processing' | 'completed' | 'failed';
  room_id: string;
  layout: Layout;
  orientation: Orientation;
  focus: string | null;
  progress: number;
  size_bytes: number | null;
  duration_ms: number | null;
  error: string | null;
  created_at: string;
}

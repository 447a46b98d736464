import type { ExportsTable } from '../../db/types.js';
import { iso, isoOrNull } from '../../lib/time.js';
import type { Format, Layout, Orientation, Resolution } from './layout.js';

/** The public shape of an export job. */
export function presentExport(e: ExportsTable, baseUrl: string) {
  return {
    job_id: e.id,
    status: e.status as 'queued' | 'processing' | 'completed' | 'failed',
    room_id: e.session_id,
    download_url: `${baseUrl}/v1/exports/${e.id}/download`,
    layout: e.layout as Layout,
    orientation: e.orientation as Orientation,
    focus: e.focus,
    keep_gaps: e.keep_gaps === 1,
    format: e.format as Format,
    resolution: e.resolution as Resolution,
    names: e.names === 1,
    from_ts: e.from_ts === null ? null : Number(e.from_ts),
    to_ts: e.to_ts === null ? null : Number(e.to_ts),
    auto: e.auto === 1,
    progress: e.progress / 1000,
    attempts: e.attempts,
    size_bytes: e.size_bytes,
    duration_ms: e.duration_ms,
    error: e.error,
    error_log: e.error_log,
    created_at: iso(e.created_at),
    started_at: isoOrNull(e.started_at),
    completed_at: isoOrNull(e.completed_at),
  };
}
export type ExportJob = ReturnType<typeof presentExport>;

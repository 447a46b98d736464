/** The sharing and export resources the session page reads, as the API answers them. */
import type { Schemas } from '@vss/client';
import type { Format, Layout, Orientation, Resolution } from '../../ui/export-fields';

export type { Format, Layout, Orientation, Resolution };

/** `POST /v1/sessions/{id}/replay-links` */
export type ReplayLink = Schemas['ReplayLink'];
/** `GET /v1/sessions/{id}/replay-links`: a link as listed, without its token. */
export type ListedReplayLink = Schemas['ListedReplayLink'];
/**
 * `GET /v1/exports/{jobId}`: `keep_gaps` keeps the paused spans (silent, showing names), `names`
 * puts name bars on the pictures, `from_ts`/`to_ts` a clip's span (null: the whole recording),
 * `auto` made by the project's auto-export.
 */
export type ExportJob = Schemas['ExportJob'];
/** `GET /v1/sessions/{id}/join-links`: a join link as listed, without its token (`max_uses` null: no limit). */
export type ListedJoinLink = Schemas['ListedJoinLink'];
/** `POST /v1/sessions/{id}/join-links`: the new link, with its address (shown this once). */
export type JoinLink = Schemas['JoinLink'];

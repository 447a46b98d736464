/**
 * Where a replay reads its recording: as a signed-in user, as anybody (public session), or
 * through a replay link. Each gives the recording's bounds and known tracks, and playback windows.
 */
import { parseMediaStream } from '@vss/protocol';
import { vss, VssError } from '../api';
import { manifestNames } from '../types';
import type { Envelope, Manifest, PlaybackWindow } from './types';

/** One playback request: the window grid starts at `fromTs`; `baseSeq` continues a read. */
export interface WindowQuery {
  fromTs: number;
  windowSize: number;
  baseSeq?: number;
}

/** What the player knows before it reads any window. */
export interface SourceInfo {
  /** first and last recorded timestamps, ms since 1970 */
  start: number;
  end: number;
  /** ids of the media streams known up front (more may be found while reading) */
  streams: string[];
  /** timeline events known up front (more are collected while reading) */
  markers: Envelope[];
  /** the names participants joined with, by user_id */
  names: Record<string, string>;
}

/** A recording the player can read. */
export interface PlaybackSource {
  info(signal: AbortSignal): Promise<SourceInfo>;
  window(query: WindowQuery, signal: AbortSignal): Promise<PlaybackWindow>;
}

/** The message shown for a 401 from a replay link. */
export const LINK_EXPIRED = 'This replay link has expired or was revoked.';
/** The message shown for a 404 on public routes (private or unknown sessions look alike). */
export const NOT_PUBLIC = 'This session is not public, or does not exist.';

/** Rethrows an API error with the message a viewer of this source should read. */
function explained(status: number, message: string) {
  return (err: unknown): never => {
    if (err instanceof VssError && err.status === status) throw new VssError(err.code, message, status);
    throw err;
  };
}

function streamsOf(manifest: Manifest): string[] {
  return manifest.participants.flatMap((p) =>
    p.tracks.map((t) => t.stream_id).filter((id) => parseMediaStream(id) !== null),
  );
}

/** What a manifest and the whole timeline tell. */
function infoOf(manifest: Manifest, markers: Envelope[]): SourceInfo {
  return {
    start: manifest.start_ts,
    end: manifest.end_ts,
    streams: streamsOf(manifest),
    markers,
    names: manifestNames(manifest),
  };
}

function windowQuery(q: WindowQuery) {
  return { from_ts: q.fromTs, window_size: q.windowSize, base_seq: q.baseSeq };
}

/** A session of the signed-in user's project: manifest, timeline and playback with the cookie. */
export function userSource(sessionId: string): PlaybackSource {
  const path = { sessionId };
  return {
    async info(signal) {
      const [manifest, timeline] = await Promise.all([
        vss.get('/v1/sessions/{sessionId}/manifest', { params: { path }, signal }),
        vss.get('/v1/sessions/{sessionId}/timeline', { params: { path }, signal }),
      ]);
      return {
        start: manifest.start_ts,
        end: manifest.end_ts,
        streams: streamsOf(manifest),
        markers: timeline,
        names: manifestNames(manifest),
      };
    },
    window: (q, signal) =>
      vss.get('/v1/sessions/{sessionId}/playback', { params: { path, query: windowQuery(q) }, signal }),
  };
}

/** A public session, read with no account: its manifest, whole timeline and playback windows. */
export function publicSource(sessionId: string): PlaybackSource {
  const path = { sessionId };
  const notPublic = explained(404, NOT_PUBLIC);
  return {
    async info(signal) {
      const [manifest, timeline] = await Promise.all([
        vss.get('/v1/public/sessions/{sessionId}/manifest', { params: { path }, signal }),
        vss.get('/v1/public/sessions/{sessionId}/timeline', { params: { path }, signal }),
      ]).catch(notPublic);
      return infoOf(manifest, timeline);
    },
    window: (q, signal) =>
      vss
        .get('/v1/public/sessions/{sessionId}/playback', { params: { path, query: windowQuery(q) }, signal })
        .catch(notPublic),
  };
}

/**
 * A replay link (`?token=`), or the same route without a token for a public session. The token
 * also opens the session's manifest (bounds and tracks) and its whole timeline.
 */
export function linkSource(sessionId: string, token: string | null): PlaybackSource {
  const path = { sessionId };
  // With a token a 401 means the link ran out; without one the routes serve public sessions only.
  const why = token ? explained(401, LINK_EXPIRED) : explained(404, NOT_PUBLIC);
  const tokenQuery = { token: token ?? undefined };
  return {
    async info(signal) {
      const params = { path, query: tokenQuery };
      const [manifest, timeline] = await Promise.all([
        vss.get('/v1/public/sessions/{sessionId}/manifest', { params, signal }),
        vss.get('/v1/public/sessions/{sessionId}/timeline', { params, signal }),
      ]).catch(why);
      return infoOf(manifest, timeline);
    },
    window: (q, signal) =>
      vss
        .get('/v1/public/sessions/{sessionId}/replay', {
          params: { path, query: { ...tokenQuery, ...windowQuery(q) } },
          signal,
        })
        .catch(why),
  };
}

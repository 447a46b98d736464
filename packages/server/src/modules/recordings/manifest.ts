import { parseMediaStream, type TrackKind } from '@vss/protocol';
import type { SessionsTable } from '../../db/types.js';
import { recordedSegments, sessionHosts, type TimelineEvent } from '../../lib/recording.js';
import type { StreamStore } from '../../streams/store.js';
import { recordingBounds } from './bounds.js';

export interface ManifestTrack {
  kind: TrackKind;
  stream_id: string;
  start_ts: number;
  end_ts: number;
  segments: Array<{ start_ts: number; end_ts: number }>;
}

/** The timeline's events that change what is recorded (pauses, resumes, rules), in order. */
async function recordingChanges(streams: StreamStore, sessionId: string): Promise<TimelineEvent[]> {
  const out: TimelineEvent[] = [];
  for await (const e of streams.read(sessionId, { streamId: 'events' })) {
    const env = JSON.parse(e.body.toString('utf8')) as TimelineEvent;
    if (env.type.startsWith('recording.')) out.push({ type: env.type, ts: e.ts, data: env.data });
  }
  return out;
}

/** A recording's manifest: its bounds, and each participant's tracks with their recorded segments. */
export async function buildManifest(
  streams: StreamStore,
  session: SessionsTable,
  displayNames: (sessionId: string) => Promise<Map<string, string>>,
) {
  const stats = await streams.stats(session.id);
  const changes = await recordingChanges(streams, session.id);
  const byUser = new Map<string, ManifestTrack[]>();
  const hosts = sessionHosts(session.created_by);
  for (const s of stats) {
    const media = parseMediaStream(s.streamId);
    if (!media) continue;
    const tracks = byUser.get(media.userId) ?? [];
    // The spans in which it was recorded: its whole length unless paused or excluded meanwhile.
    const segments = recordedSegments(changes, [], media.userId, media.kind, s.minTs, s.maxTs, hosts);
    const track = { kind: media.kind, stream_id: s.streamId, start_ts: s.minTs, end_ts: s.maxTs };
    tracks.push({ ...track, segments });
    byUser.set(media.userId, tracks);
  }
  const names = await displayNames(session.id);
  const participants = [...byUser.entries()]
    .map(([user_id, tracks]) => ({
      user_id,
      display_name: names.get(user_id) ?? user_id,
      tracks: tracks.sort((a, b) => a.start_ts - b.start_ts || a.kind.localeCompare(b.kind)),
    }))
    .sort((a, b) => a.tracks[0]!.start_ts - b.tracks[0]!.start_ts || a.user_id.localeCompare(b.user_id));
  const { start, end } = await recordingBounds(
    streams,
    session.id,
    stats,
    session.ended_at,
    session.started_at ?? session.created_at,
  );
  const capabilities = ['separated-tracks', 'event-timeline', 'director-track', 'configurable-layouts'];
  if (stats.some((s) => s.streamId === 'captions')) capabilities.push('captions');
  return {
    version: 1 as const,
    session_id: session.id,
    session_name: session.name,
    epoch: start,
    start_ts: start,
    end_ts: end,
    participants,
    streams: { events: 'events', chat: 'chat', director: 'director' },
    capabilities,
  };
}

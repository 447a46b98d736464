import { LIVE_ERRORS, parseMediaStream, type TrackKind } from '@vss/protocol';
import type { LiveConnection, LiveSession } from './connection.js';
import { sendError } from './delivery.js';
import type { Pipeline } from './recording.js';

/**
 * Records the end of a track in the timeline and tells the others. `queued`: called from a step of
 * the session's chain, which writes the timeline directly (appending to the chain from inside it
 * would wait for itself).
 */
export async function endTrack(
  p: Pipeline,
  live: LiveSession,
  conn: LiveConnection,
  kind: TrackKind,
  ts: number,
  queued = false,
): Promise<void> {
  const streamId = `media/${conn.userId}/${kind}`;
  const data = { user_id: conn.userId, kind, stream_id: streamId };
  if (queued) await p.events.record(live.session.id, 'track.unpublished', conn.userId, data, ts);
  else await p.events.append(live, 'track.unpublished', conn.userId, data, ts);
  p.control(live, conn.id, 'track.unpublished', conn.userId, { kind, stream_type: streamId }, ts);
  for (const m of live.members.values()) m.conn.pacer?.chooser.forget(`${conn.userId}/${kind}`);
}

/**
 * Ends a media track of the connection, in the session's order: after the publishes it sent
 * before (the frame that began the track may still be queued) and before those it sent after, so
 * that the timeline places the end between them.
 */
export function unpublish(p: Pipeline, live: LiveSession, conn: LiveConnection, streamType: string) {
  const run = live.chain.then(async () => {
    const member = live.members.get(conn.id);
    const media = parseMediaStream(streamType);
    if (!member || !media || media.userId !== conn.userId || !member.tracks.has(media.kind))
      return sendError(conn, LIVE_ERRORS.BAD_MESSAGE, `no published track ${streamType}`);
    member.tracks.delete(media.kind);
    await endTrack(p, live, conn, media.kind, Date.now(), true);
  });
  live.chain = run.catch(() => {});
  return run;
}

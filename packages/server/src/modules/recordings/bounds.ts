import type { StreamStat, StreamStore } from '../../streams/store.js';

/** Whether a timeline event's body is a participant's leave. */
function isLeave(body: Buffer): boolean {
  try {
    return (JSON.parse(body.toString('utf8')) as { type?: unknown }).type === 'participant.left';
  } catch {
    return false;
  }
}

/**
 * Where a recording starts and ends: from its first recorded event to its last media (or chat,
 * director, captions) or the last participant's leave, whichever is later. Timeline events written
 * after that (the session's end, SESSION_DEPARTURE_TIMEOUT_S after the last leave, then
 * recording.ready, export.completed, a redaction) stay in the timeline but do not lengthen the
 * recording: the manifest, recording.ready, the session page, the player and the CLI show this
 * length, the export's (first to last media) with the joins and leaves around it. A session still live ends, so far, at its latest event. Media keeps its publishers'
 * own timestamps, whatever the server's clock said.
 */
export async function recordingBounds(
  streams: StreamStore,
  sessionId: string,
  stats: StreamStat[],
  ended: number | null,
  fallback: number,
): Promise<{ start: number; end: number }> {
  if (stats.length === 0) return { start: fallback, end: ended ?? fallback };
  const start = Math.min(...stats.map((s) => s.minTs));
  const recorded = stats.filter((s) => s.streamId !== 'events');
  let end = recorded.length ? Math.max(...recorded.map((s) => s.maxTs)) : start;
  const timeline = stats.find((s) => s.streamId === 'events');
  if (!timeline || timeline.maxTs <= end) return { start, end };
  if (ended === null) return { start, end: timeline.maxTs };
  // Only the timeline after the last media can move the end: a few events, read from there.
  for await (const e of streams.read(sessionId, { streamId: 'events', fromTs: end }))
    if (e.ts > end && isLeave(e.body)) end = e.ts;
  return { start, end };
}

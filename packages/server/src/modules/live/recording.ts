import { parseMediaStream } from '@vss/protocol';
import type { Fanout, FanoutMedia } from '../../bus/fanout.js';
import type { StreamWriter } from '../../streams/writer.js';
import type { LiveConnection, LiveSession, Member, SendControl } from './connection.js';
import { deliver } from './delivery.js';
import type { Sequencer } from './sequencer.js';
import type { LiveStats } from './stats.js';
import type { Timeline } from './timeline.js';
import { stateName, type RecordingState } from './recording-control.js';

/** What the session's pipeline needs of the hub. */
export interface Pipeline {
  events: Timeline;
  sequencer: Sequencer;
  writer: StreamWriter;
  fanout: Fanout;
  stats: LiveStats;
  control: SendControl;
}

/**
 * Takes one accepted message in the session's order: a track's first media is announced
 * (`track.published`, in the timeline and to the others), the message gets its seq, is written
 * when `stored` (the recording rules and pause decide it), and is delivered here and fanned out to
 * the other processes either way. Resolves with the seq and when it is durable (at once when it is
 * not stored).
 */
export function sequence(
  p: Pipeline,
  live: LiveSession,
  conn: LiveConnection,
  member: Member,
  msg: { streamId: string; body: Buffer; ts: number; isMedia: boolean },
  stored: boolean,
): Promise<{ seq: number; durable: Promise<void> }> {
  const { streamId, body, ts } = msg;
  const run = live.chain.then(async () => {
    if (msg.isMedia) {
      const kind = parseMediaStream(streamId)!.kind;
      if (!member.tracks.has(kind)) {
        member.tracks.add(kind);
        const data = { user_id: conn.userId, kind, stream_id: streamId };
        await p.events.record(live.session.id, 'track.published', conn.userId, data, ts);
        p.control(live, conn.id, 'track.published', conn.userId, { kind, stream_type: streamId }, ts);
      }
    }
    const seq = await p.sequencer.next(live.session.id);
    const durable = stored
      ? p.writer.append({ sessionId: live.session.id, seq, streamId, ts, body })
      : Promise.resolve();
    p.stats.published += 1;
    p.stats.publishedBytes += body.length;
    const out: FanoutMedia = {
      kind: 'message',
      fromConn: conn.id,
      streamType: streamId,
      timestampMs: ts,
      seq,
      payload: body,
    };
    deliver(live.members.values(), out, live.rates);
    p.fanout.publish(live.session.id, out);
    return { seq, durable };
  });
  live.chain = run.catch(() => {});
  return run;
}

/**
 * What participants are told of a recording state: `{ state, rules, hosts }`, `hosts` being the
 * session's (whom a `host` rule matches), so that every client reads the rules as the server does.
 */
export const recordingData = (s: RecordingState, hosts: readonly string[]) => ({
  state: stateName(s),
  rules: s.rules,
  hosts: [...hosts],
});

/** A recording state from what `recordingData` told, as another process sent it. */
export const fromRecordingData = (d: Record<string, unknown>): RecordingState => ({
  paused: d.state === 'paused',
  rules: Array.isArray(d.rules) ? (d.rules as RecordingState['rules']) : [],
});

/**
 * Records, at the session's start, the recording state it starts in when someone changed it
 * before: the timeline then says from its first moment what was recorded.
 */
export async function recordStartState(events: Timeline, live: LiveSession, ts: number): Promise<void> {
  const { rules, paused } = live.recording;
  if (rules.length > 0) await events.append(live, 'recording.rules_changed', 'system', { rules }, ts);
  if (paused) await events.append(live, 'recording.paused', 'system', {}, ts);
}

import type { Fanout, FanoutMedia } from '../../bus/fanout.js';
import type { LiveConnection, LiveSession } from './connection.js';
import { deliver, sendControl } from './delivery.js';
import type { IncomingPublish } from './publish-rules.js';
import type { LiveStats } from './stats.js';

/**
 * Relays a reduced layer (1 or 2) of a video track to the receivers that get that layer; it is
 * never recorded. It goes in the session's order all the same, so that no receiver sees a reduced
 * layer's frames overtake the recorded layer's. Acked without a seq when the publisher asked.
 */
export async function relayLayer(
  live: LiveSession,
  conn: LiveConnection,
  msg: IncomingPublish & { streamId: string; body: Buffer; ts: number },
  fanout: Fanout,
  stats: LiveStats,
): Promise<void> {
  const out: FanoutMedia = {
    kind: 'message',
    fromConn: conn.id,
    streamType: msg.streamId,
    timestampMs: msg.ts,
    layer: msg.layer,
    payload: msg.body,
  };
  const run = live.chain.then(() => {
    stats.relayed += 1;
    stats.relayedBytes += msg.body.length;
    deliver(live.members.values(), out, live.rates);
    fanout.publish(live.session.id, out);
  });
  live.chain = run.catch(() => {});
  await run;
  if (msg.id !== undefined) sendControl(conn, 'ack', conn.userId, { id: msg.id, layer: msg.layer });
}

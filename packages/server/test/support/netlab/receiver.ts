/**
 * A live receiver for the network tests: joins one session with `@vss/client` (binary format, no
 * reconnect: a dropped connection is an outcome to record, not to hide) and writes one JSON line
 * to stdout per thing it receives, stamped with its arrival (Date.now(): every process of a test
 * shares the machine's clock):
 *
 *   {"t":…,"k":"welcome"}
 *   {"t":…,"k":"media","stream":"media/bot-1/cam","ts":…,"seq":…,"bytes":…,"key":true,"codec":"vp8","us":…,"dur":…}
 *   {"t":…,"k":"layer","user":"bot-1","data":{"track":"cam","layer":1,"state":"reduced"}}
 *   {"t":…,"k":"close","code":1006,"reason":""}
 *
 * `key`, `codec`, `us` (chunk timestamp, µs) and `dur` only for EVC1 payloads. Runs the same in
 * the root namespace and inside a netlab namespace (`ip netns exec`): the URL says where the
 * server is. Environment: VSS_URL (ws://host:port), VSS_SESSION, VSS_USER, VSS_TOKEN. Exits
 * after the close; SIGTERM closes with 1000 first.
 *
 *   node --import tsx packages/server/test/support/netlab/receiver.ts
 */
import { LiveClient } from '@vss/client';
import { decodeEvc1 } from '@vss/protocol';
import { WebSocket } from 'ws';

function need(name: string): string {
  const v = process.env[name];
  if (!v) {
    process.stderr.write(`receiver: ${name} is not set\n`);
    process.exit(2);
  }
  return v;
}

const out = (o: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ t: Date.now(), ...o })}\n`);

const client = new LiveClient({
  url: need('VSS_URL'),
  session: need('VSS_SESSION'),
  userId: need('VSS_USER'),
  token: need('VSS_TOKEN'),
  format: 'binary',
  reconnect: false,
  WebSocket,
});

client.on('message', (m) => {
  const line: Record<string, unknown> = {
    k: 'media',
    stream: m.streamType,
    ts: m.timestampMs,
    seq: m.seq,
    bytes: m.payload.byteLength,
  };
  if (m.streamType.startsWith('media/')) {
    try {
      const c = decodeEvc1(m.payload);
      Object.assign(line, { key: c.key, codec: c.codec, us: c.timestampUs, dur: c.durationUs });
    } catch {
      // not EVC1 (a JPEG camera): arrival and size only
    }
  }
  out(line);
});
client.on('control', (f) => {
  if (f.event === 'layer') out({ k: 'layer', user: f.user_id, data: f.data });
  else if (f.event === 'welcome') out({ k: 'welcome' });
});
client.on('close', (e) => {
  out({ k: 'close', code: e.code, reason: e.reason });
  // stdout is a pipe: let it drain before leaving.
  process.stdout.write('', () => process.exit(0));
});
client.on('error', (err) => process.stderr.write(`receiver: ${err.message}\n`));
process.once('SIGTERM', () => void client.close());

client.connect().catch((err: Error) => {
  out({ k: 'close', code: -1, reason: err.message });
  process.stdout.write('', () => process.exit(1));
});

// A participant to try vss from a shell, on the `@vss/client` package of this repository.
// It joins a live session, says hello in the chat, publishes two seconds of a 440 Hz tone on its
// microphone (EVC1 pcm-s16, 20 ms frames, real time), waits for every frame's acknowledgement
// (each one durably recorded), and leaves.
//
//   node examples/participant.mjs BASE_URL API_KEY SESSION_ID [USER_ID]
//
// The connection token is minted here with the API key: a server should do that for its users
// and hand the browser only the token.
import { LiveClient, encodeEvc1 } from '@vss/client';
import { WebSocket } from 'ws';

const [base, key, session, userId = 'alice'] = process.argv.slice(2);
if (!base || !key || !session) {
  console.error('usage: node examples/participant.mjs BASE_URL API_KEY SESSION_ID [USER_ID]');
  process.exit(2);
}

/** A fresh connection token for this participant (tokens live 300 s). */
async function token() {
  const res = await fetch(`${base}/v1/sessions/${session}/connection`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ user_id: userId }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`connection token: ${body.error.code} ${body.error.message}`);
  return body.data.access_token;
}

const client = new LiveClient({ url: base.replace(/^http/, 'ws'), session, userId, token, WebSocket });
const welcome = await client.connect();
console.log(`joined ${session} as ${userId}; present: ${welcome.data.participants.length}`);

const acks = [client.publishChat(`hello from ${userId}`, { ack: true })];
const rate = 48_000;
const samples = rate / 50; // 20 ms
const description = new TextEncoder().encode(JSON.stringify({ sampleRate: rate, numberOfChannels: 1 }));
const started = Date.now();
for (let frame = 0; frame < 100; frame += 1) {
  const pcm = new DataView(new ArrayBuffer(samples * 2));
  for (let i = 0; i < samples; i += 1) {
    const t = (frame * samples + i) / rate;
    pcm.setInt16(i * 2, Math.round(Math.sin(2 * Math.PI * 440 * t) * 8000), true);
  }
  const chunk = encodeEvc1({
    key: true,
    codec: 'pcm-s16',
    timestampUs: frame * 20_000,
    durationUs: 20_000,
    description,
    data: new Uint8Array(pcm.buffer),
  });
  acks.push(client.publish(`media/${userId}/mic`, chunk, { ack: true, timestampMs: started + frame * 20 }));
  // Real time: a live microphone sends a frame every 20 ms.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + (frame + 1) * 20 - Date.now())));
}
const seqs = await Promise.all(acks);
console.log(`recorded ${seqs.length} messages, seq ${Math.min(...seqs)} to ${Math.max(...seqs)}`);
await client.close();

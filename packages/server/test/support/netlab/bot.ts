/**
 * `vss bot` with its defaults (one bot: camera, microphone, chat) as a process of its own, so that
 * it can run inside a netlab namespace behind a slow uplink. It is the bot API the CLI runs
 * (packages/cli/src/bot); this wrapper only mints tokens with an API key and writes its progress
 * and its report as JSON lines on stdout:
 *
 *   {"t":…,"k":"event","event":{"type":"joined",…}}
 *   {"t":…,"k":"report","report":{"bots":[{"framesSent":…,"framesAcked":…,…}],…}}
 *
 * Environment: VSS_BASE (http://host:port), VSS_KEY (an API key), VSS_SESSION, VSS_DURATION_S;
 * VSS_BOT_MODULE, optional: the path of another bot module (another branch's
 * packages/cli/src/bot/index.ts checked out inside this repository, where its imports resolve),
 * to measure a bot before it is merged. SIGTERM makes the bot leave cleanly (the report is still
 * written).
 */
import { pathToFileURL } from 'node:url';
import type * as BotModule from '../../../../cli/src/bot/index.js';

const { runBots } = (await import(
  process.env.VSS_BOT_MODULE
    ? pathToFileURL(process.env.VSS_BOT_MODULE).href
    : '../../../../cli/src/bot/index.js'
)) as typeof BotModule;

function need(name: string): string {
  const v = process.env[name];
  if (!v) {
    process.stderr.write(`bot: ${name} is not set\n`);
    process.exit(2);
  }
  return v;
}

const out = (o: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ t: Date.now(), ...o })}\n`);
const base = need('VSS_BASE');
const key = need('VSS_KEY');
const sessionId = need('VSS_SESSION');
const controller = new AbortController();
process.once('SIGTERM', () => controller.abort());

async function token(userId: string): Promise<string> {
  const res = await fetch(`${base}/v1/sessions/${sessionId}/connection`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ user_id: userId }),
  });
  if (!res.ok) throw new Error(`connection token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { access_token: string } }).data.access_token;
}

runBots({
  baseUrl: base,
  sessionId,
  connectionToken: token,
  count: 1,
  durationS: Number(need('VSS_DURATION_S')),
  statsEveryS: 1,
  signal: controller.signal,
  onEvent: (event) => {
    if (event.type !== 'ffmpeg') out({ k: 'event', event });
  },
}).then(
  (report) =>
    process.stdout.write(`${JSON.stringify({ t: Date.now(), k: 'report', report })}\n`, () =>
      process.exit(0),
    ),
  (err: Error) => {
    process.stderr.write(`bot: ${err.message}\n`);
    process.exit(1);
  },
);

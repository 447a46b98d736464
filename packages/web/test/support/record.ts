/**
 * Recording sessions for the replay tests: participants connect over the real WebSocket and
 * publish media, chat and director commands at the pace of a live session, with their media
 * timestamps, through the real server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LiveClient } from '@vss/client';
import { decodeEvc1, isEvc1 } from '@vss/protocol';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { evc1, opusPackets, vpxChunks } from '../../../server/test/support/media.js';
import { eventually } from '../../../server/test/support/wait.js';
import { nodeLiveClient, type Vss } from './browser.js';

/** Calls the API with an API key; returns the envelope's data, throwing on an error answer. */
export async function call(
  vss: Vss,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<any> {
  const res = await fetch(`${vss.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as any;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/**
 * Joins session `id` as a watcher in Node and notes the codec of every media message the server
 * relays: `seen` maps each stream (`media/<user>/<kind>`) to the codecs it came in.
 */
export async function watchCodecs(
  vss: Vss,
  key: string,
  id: string,
): Promise<{ seen: Map<string, Set<string>>; close(): Promise<void> }> {
  const watcher: LiveClient = nodeLiveClient(
    vss.base,
    id,
    'observer',
    async () =>
      (await call(vss, key, 'POST', `/v1/sessions/${id}/connection`, { user_id: 'observer' })).access_token,
  );
  const seen = new Map<string, Set<string>>();
  watcher.on('message', (m) => {
    if (!m.streamType.startsWith('media/') || !isEvc1(m.payload)) return;
    let codecs = seen.get(m.streamType);
    if (!codecs) seen.set(m.streamType, (codecs = new Set()));
    codecs.add(decodeEvc1(m.payload).codec);
  });
  await watcher.connect();
  return { seen, close: () => watcher.close() };
}

/**
 * Exports session `id` (its default export: the grid MP4), waits for the job to complete and
 * hands `use` the downloaded file, which is removed afterwards.
 */
export async function exported(
  vss: Vss,
  key: string,
  id: string,
  use: (file: string) => Promise<void>,
): Promise<void> {
  const job = await call(vss, key, 'GET', `/v1/sessions/${id}/export`);
  await expect
    .poll(async () => (await call(vss, key, 'GET', `/v1/exports/${job.job_id}`)).status, {
      timeout: 120_000,
      interval: 500,
    })
    .toMatch(/completed|failed/);
  expect((await call(vss, key, 'GET', `/v1/exports/${job.job_id}`)).status).toBe('completed');
  const dir = mkdtempSync(join(tmpdir(), 'vss-export-'));
  try {
    const file = join(dir, 'export.mp4');
    const res = await fetch(`${vss.base}/v1/exports/${job.job_id}/download`, {
      headers: { authorization: `Bearer ${key}` },
    });
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    await use(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An API key of the signed-in page's project, made with its cookie (same origin). */
export function apiKey(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const projects = await (await fetch('/v1/projects')).json();
    const res = await fetch(`/v1/projects/${projects.data[0].id}/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'replay test' }),
    });
    return (await res.json()).data.secret as string;
  });
}

/** One message of a recording plan, `atMs` after the start; `ack` asks for the server's ack. */
export interface Planned {
  user: string;
  atMs: number;
  send(c: LiveClient, ts: number, ack: boolean): Promise<unknown>;
}

/** A chat message from `user` at `atMs`. */
export function chat(user: string, atMs: number, text: string): Planned {
  return { user, atMs, send: (c, ts, ack) => c.publishChat(text, { timestampMs: ts, ack }) };
}

/** A camera of one colour (VP8) from `fromMs` for `seconds`. */
export async function camera(user: string, colour: string, seconds: number, fromMs = 0): Promise<Planned[]> {
  const chunks = await vpxChunks('vp8', colour, seconds);
  return chunks.map((c) => ({
    user,
    atMs: fromMs + c.offsetUs / 1000,
    send: (client, ts, ack) =>
      client.publish(`media/${user}/cam`, evc1('vp8', c, (ts - c.offsetUs / 1000) * 1000), {
        timestampMs: ts,
        binary: true,
        ack,
      }),
  }));
}

/** A microphone (an Opus tone) from the start for `seconds`. */
export async function microphone(user: string, tone: number, seconds: number): Promise<Planned[]> {
  const packets = await opusPackets(tone, seconds);
  return packets.map((c) => ({
    user,
    atMs: c.offsetUs / 1000,
    send: (client, ts, ack) =>
      client.publish(`media/${user}/mic`, evc1('opus', c, (ts - c.offsetUs / 1000) * 1000), {
        timestampMs: ts,
        binary: true,
        ack,
      }),
  }));
}

/** Stops `user`'s `kind` track at `atMs`. */
export function unpublish(user: string, kind: 'cam' | 'mic', atMs: number): Planned {
  return { user, atMs, send: (c) => c.unpublish(`media/${user}/${kind}`) };
}

/**
 * Records `plan` in a session: each participant (user_id → display name) connects, every message
 * leaves when its moment comes, each participant's last one is acknowledged (so everything it sent
 * is durably written), and the function returns once the server has ended the session. Returns
 * the time the plan started (ms since 1970): `atMs` 0.
 */
export async function record(
  vss: Vss,
  key: string,
  sessionId: string,
  people: Record<string, string>,
  plan: Planned[],
): Promise<number> {
  const sorted = [...plan].sort((a, b) => a.atMs - b.atMs);
  const last = new Map(sorted.map((m) => [m.user, m]));
  const clients = new Map<string, LiveClient>();
  for (const [user, name] of Object.entries(people)) {
    const c = nodeLiveClient(
      vss.base,
      sessionId,
      user,
      async () =>
        (
          await call(vss, key, 'POST', `/v1/sessions/${sessionId}/connection`, {
            user_id: user,
            display_name: name,
          })
        ).access_token,
    );
    await c.connect();
    clients.set(user, c);
  }
  const t0 = Date.now();
  for (const m of sorted) {
    const due = t0 + m.atMs - Date.now();
    if (due > 0) await new Promise((r) => setTimeout(r, due));
    await m.send(clients.get(m.user)!, t0 + Math.round(m.atMs), last.get(m.user) === m);
  }
  for (const c of clients.values()) await c.close();
  await eventually(
    async () => (await call(vss, key, 'GET', `/v1/sessions/${sessionId}`)).ended_at,
    20_000,
    'the session to end',
  );
  return t0;
}

import { encodeEvc1 } from '@vss/protocol';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
// @ts-expect-error: the parser ships no type declarations; what it returns is `Family` below.
import parseUntyped from 'parse-prometheus-text-format';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RENDER_JOB } from '../src/modules/exports/jobs.js';
import { DELIVER_JOB } from '../src/modules/webhooks/jobs.js';
import { call, createSession, startApp, tenant, type Tenant, type TestApp } from './support/app.js';
import { exportTo } from './support/exports.js';
import { eventually, join, jpeg, leave, publish } from './support/live.js';
import { h264Camera, recordSession } from './support/media.js';
import { freePort } from './support/process.js';
import { receiver, type Receiver } from './support/webhooks.js';

/** One series of a family, as the parser gives it: a value, or a histogram's buckets, count and sum. */
interface Sample {
  labels?: Record<string, string>;
  value?: string;
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}
interface Family {
  name: string;
  help: string;
  type: string;
  metrics: Sample[];
}
const parsePrometheus = parseUntyped as (text: string) => Family[];

/**
 * One scrape of `/metrics`: the text as served, its families by name, and every series by sample
 * name. The parser folds a labelled histogram's series into one (their labels, counts and sums
 * lost), so the series are read from a second parse with histograms declared untyped: each
 * `_bucket`, `_sum` and `_count` line then keeps its labels.
 */
interface Scrape {
  text: string;
  families: Map<string, Family>;
  series: Map<string, Sample[]>;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** What an id looks like when it is not a UUID: a long run of hex or base-36 characters with digits in it. */
const LONG_ID = /(?=[a-z]*\d)[0-9a-z]{16,}/i;

async function scrape(t: TestApp): Promise<Scrape> {
  const res = await fetch(`http://127.0.0.1:${t.runtime.metricsPort}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await res.text();
  const families = new Map<string, Family>();
  for (const f of parsePrometheus(text)) families.set(f.name, f);
  const series = new Map<string, Sample[]>();
  const untyped = text.replace(/^(# TYPE \S+) histogram$/gm, '$1 untyped');
  // (Each series of a histogram comes out as families of its own: `_count` once per label set.)
  for (const f of parsePrometheus(untyped)) series.set(f.name, [...(series.get(f.name) ?? []), ...f.metrics]);
  return { text, families, series };
}

/** The series named `name` (a histogram's: `name_count`, …) whose labels include `labels`. */
function series(s: Scrape, name: string, labels: Record<string, string> = {}): Sample[] {
  return (s.series.get(name) ?? []).filter((m) =>
    Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
  );
}

/** A counter's or gauge's value summed over the matching series (0 when there is none yet). */
function value(s: Scrape, name: string, labels?: Record<string, string>): number {
  return series(s, name, labels).reduce((n, m) => n + Number(m.value), 0);
}

/** A histogram's observation count summed over the matching series. */
function count(s: Scrape, name: string, labels?: Record<string, string>): number {
  expect(s.families.get(name)?.type, name).toBe('HISTOGRAM');
  return value(s, `${name}_count`, labels);
}

/** How far a counter, gauge (`value`) or histogram (`count`) moved between two scrapes. */
function moved(
  before: Scrape,
  after: Scrape,
  name: string,
  labels?: Record<string, string>,
  read: typeof value = value,
) {
  return read(after, name, labels) - read(before, name, labels);
}

/** Every label value of the scrape. */
function labelValues(s: Scrape): string[] {
  return [...s.series.values()].flatMap((samples) => samples.flatMap((m) => Object.values(m.labels ?? {})));
}

/** Fast webhook attempts, and retries far enough away that a failed one stays queued for the test. */
const ENV = {
  METRICS_PORT: '0',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_RETRY_DELAYS_S: '600',
  WEBHOOK_TIMEOUT_MS: '2000',
  USAGE_FLUSH_INTERVAL_S: '1',
  SESSION_DEPARTURE_TIMEOUT_S: '0',
};

describe('Prometheus metrics on METRICS_PORT', () => {
  let t: TestApp;
  const receivers: Receiver[] = [];
  /** Every id the tests made: none may appear anywhere in a scrape. */
  const ids = new Set<string>();

  /** A new organisation, its ids noted. */
  async function newTenant(): Promise<Tenant> {
    const a = await tenant(t);
    for (const id of [a.userId, a.orgId, a.projectId]) ids.add(id);
    const keys = await call(t, 'GET', '/v1/api-keys', { key: a.key });
    for (const k of keys.body.data as Array<{ id: string }>) ids.add(k.id);
    return a;
  }

  async function newSession(a: Tenant): Promise<{ id: string }> {
    const s = await createSession(t, a.key);
    ids.add(s.id);
    return s;
  }

  async function webhook(a: Tenant, answer: number): Promise<{ hook: { id: string }; r: Receiver }> {
    const r = await receiver(0, () => answer);
    receivers.push(r);
    const res = await call(t, 'POST', '/v1/webhooks', {
      key: a.key,
      body: { url: r.url, events: ['session.created'] },
    });
    expect(res.status, res.raw).toBe(201);
    ids.add(res.body.data.id);
    return { hook: res.body.data, r };
  }

  beforeAll(async () => {
    t = await startApp({ env: ENV, jobPollMs: 100 });
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });
  afterAll(async () => {
    await t?.close();
  });

  it("counts a reduced layer's frames and bytes as received, as the recorded layer's", async () => {
    const a = await newTenant();
    const s = await newSession(a);
    const alice = await join(t, a.key, s.id, 'alice');
    const before = await scrape(t);
    const base = [jpeg(1, 300), jpeg(2, 300)];
    const reduced = [jpeg(1, 120), jpeg(2, 120), jpeg(3, 120)];
    base.forEach((f, i) => alice.send(publish('media/alice/cam', f, { id: `b${i}` })));
    reduced.forEach((f, i) => alice.send(publish('media/alice/cam', f, { id: `r${i}`, layer: 1 })));
    await alice.waitForCount((m) => m.type === 'control' && m.event === 'ack', 5);
    const after = await scrape(t);
    expect(moved(before, after, 'vss_live_frames_received_total')).toBe(5);
    expect(moved(before, after, 'vss_live_received_bytes_total')).toBe(2 * 300 + 3 * 120);
    await leave(alice);
  });

  it('counts a live session: frames and bytes received, acknowledgements, recording writes, deliveries, who is connected, and the minutes streamed', async () => {
    const a = await newTenant();
    const s = await newSession(a);
    const before = await scrape(t);

    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    const during = await scrape(t);
    expect(moved(before, during, 'vss_live_sessions')).toBe(1);
    expect(moved(before, during, 'vss_live_participants')).toBe(2);
    expect(value(during, 'vss_live_sessions')).toBe(1);
    expect(value(during, 'vss_live_participants')).toBe(2);

    // Two frames without an id (never acknowledged), then five with: publishes of a connection
    // are handled in order, so once the last ack is in every one of them was accepted.
    const frames = [jpeg(1, 100), jpeg(2, 200), ...[3, 4, 5, 6, 7].map((n) => jpeg(n, 64 * n))];
    frames.forEach((f, i) => alice.send(publish('media/alice/cam', f, i < 2 ? {} : { id: `frame-${i}` })));
    await alice.waitForCount((m) => m.type === 'control' && m.event === 'ack', 5);
    await bob.waitForCount((m) => m.type === 'message' && m.stream_type === 'media/alice/cam', 7);
    const payloadBytes = frames.reduce((n, f) => n + f.length, 0);
    const published = await scrape(t);

    expect(moved(before, published, 'vss_live_frames_received_total')).toBe(7);
    expect(moved(before, published, 'vss_live_received_bytes_total')).toBe(payloadBytes);
    expect(moved(before, published, 'vss_live_ack_latency_seconds', {}, count)).toBe(5);
    // The timeline (joins, the track published) is recorded with the frames.
    expect(moved(before, published, 'vss_recording_stored_bytes_total')).toBeGreaterThanOrEqual(payloadBytes);
    expect(moved(before, published, 'vss_recording_append_batch_events', {}, count)).toBeGreaterThan(0);
    expect(moved(before, published, 'vss_recording_append_batch_bytes', {}, count)).toBeGreaterThan(0);
    expect(moved(before, published, 'vss_recording_append_seconds', {}, count)).toBeGreaterThan(0);
    // Every message either participant got was counted when sent (welcomes, joins, frames, acks).
    expect(moved(before, published, 'vss_live_frames_delivered_total')).toBeGreaterThanOrEqual(
      alice.received.text.length + bob.received.text.length,
    );
    expect(moved(before, published, 'vss_live_delivered_bytes_total')).toBeGreaterThan(payloadBytes);
    expect(moved(before, published, 'vss_live_frames_dropped_total')).toBe(0);

    await leave(alice);
    await leave(bob);
    const after = await eventually(
      async () => {
        const now = await scrape(t);
        return value(now, 'vss_live_participants') === 0 &&
          value(now, 'vss_live_sessions') === 0 &&
          moved(before, now, 'vss_usage_streaming_minutes_total') > 0
          ? now
          : null;
      },
      10_000,
      'the participants to be gone and their minutes recorded',
    );
    // Two participants connected for a moment: a small fraction of a minute each.
    expect(moved(before, after, 'vss_usage_streaming_minutes_total')).toBeLessThan(2);
  });

  it('counts the video layers: relayed frames, receivers by layer, their link rates, and key-frame requests by outcome', async () => {
    const a = await newTenant();
    const s = await newSession(a);
    const before = await scrape(t);
    const alice = await join(t, a.key, s.id, 'alice');
    const bob = await join(t, a.key, s.id, 'bob');
    const chunk = (layer: number) =>
      Buffer.from(
        encodeEvc1({
          key: true,
          codec: 'vp8',
          timestampUs: 0,
          durationUs: 66_666,
          description: new Uint8Array(0),
          data: new Uint8Array(300).fill(layer),
        }),
      );
    for (const layer of [0, 1, 2])
      alice.send(publish('media/alice/cam', chunk(layer), { id: `l${layer}`, ...(layer ? { layer } : {}) }));
    await alice.waitForCount((m) => m.type === 'control' && m.event === 'ack', 3);
    await bob.waitFor((m) => m.type === 'message' && m.stream_type === 'media/alice/cam');
    bob.send({ type: 'keyframe', user_id: 'alice', track: 'cam' });
    bob.send({ type: 'keyframe', user_id: 'alice', track: 'cam' });
    await alice.waitFor((m) => m.type === 'control' && m.event === 'keyframe');
    await bob.waitFor((m) => m.type === 'control' && m.event === 'error' && m.data.code === 'RATE_LIMITED');
    const after = await scrape(t);
    expect(moved(before, after, 'vss_live_frames_relayed_total')).toBe(2);
    expect(moved(before, after, 'vss_live_keyframe_requests_total', { outcome: 'fromReceivers' })).toBe(2);
    expect(moved(before, after, 'vss_live_keyframe_requests_total', { outcome: 'refused' })).toBe(1);
    expect(moved(before, after, 'vss_live_keyframe_requests_total', { outcome: 'sent' })).toBe(1);
    // Bob gets alice's camera at its best layer; each receiver's link rate is one observation.
    expect(value(after, 'vss_live_receiver_tracks', { layer: '0' })).toBe(1);
    expect(count(after, 'vss_live_receiver_rate_bytes_per_second')).toBe(2);
    expect(after.families.has('vss_live_layer_switches_total')).toBe(true);
    expect(after.families.has('vss_live_keyframe_skips_total')).toBe(true);
    await leave(alice);
    await leave(bob);
  });

  /**
   * Sends a test delivery to a receiver answering `status`; the scrapes before it and once its
   * attempt settled (it is counted when the job settles, just after the receiver answered).
   */
  async function testDelivery(status: number): Promise<{ before: Scrape; after: Scrape }> {
    const a = await newTenant();
    const { hook, r } = await webhook(a, status);
    const before = await scrape(t);
    const sent = await call(t, 'POST', `/v1/webhooks/${hook.id}/test`, { key: a.key });
    expect(sent.status, sent.raw).toBe(202);
    const after = await eventually(
      async () => {
        const now = await scrape(t);
        return moved(before, now, 'vss_job_attempts_total', { kind: DELIVER_JOB }) > 0 ? now : null;
      },
      10_000,
      'the delivery job to settle',
    );
    expect(r.hits).toHaveLength(1);
    return { before, after };
  }

  it('counts a webhook delivered: one success, its latency, and one successful job attempt', async () => {
    const { before, after } = await testDelivery(200);
    expect(moved(before, after, 'vss_webhook_deliveries_total', { outcome: 'succeeded' })).toBe(1);
    expect(moved(before, after, 'vss_webhook_deliveries_total', { outcome: 'failed' })).toBe(0);
    expect(moved(before, after, 'vss_webhook_delivery_latency_seconds', {}, count)).toBe(1);
    expect(moved(before, after, 'vss_job_attempts_total', { kind: DELIVER_JOB, outcome: 'succeeded' })).toBe(
      1,
    );
    expect(moved(before, after, 'vss_job_attempts_total', { kind: DELIVER_JOB })).toBe(1);
  });

  it('counts a webhook refused with 500 as failed, its job as retried, and shows the retry waiting in the queue', async () => {
    const { before, after } = await testDelivery(500);
    expect(moved(before, after, 'vss_webhook_deliveries_total', { outcome: 'failed' })).toBe(1);
    expect(moved(before, after, 'vss_webhook_deliveries_total', { outcome: 'succeeded' })).toBe(0);
    // Latency is that of successful deliveries only.
    expect(moved(before, after, 'vss_webhook_delivery_latency_seconds', {}, count)).toBe(0);
    expect(moved(before, after, 'vss_job_attempts_total', { kind: DELIVER_JOB, outcome: 'retried' })).toBe(1);
    expect(moved(before, after, 'vss_job_attempts_total', { kind: DELIVER_JOB })).toBe(1);

    // The retry waits (ten minutes away): queued, by kind, and not yet due.
    expect(moved(before, after, 'vss_jobs_queued', { kind: DELIVER_JOB })).toBe(1);
    const age = series(after, 'vss_jobs_oldest_due_age_seconds', { kind: DELIVER_JOB });
    expect(age).toHaveLength(1);
    expect(Number(age[0]!.value)).toBe(0);
    for (const name of ['vss_jobs_queued', 'vss_jobs_oldest_due_age_seconds'])
      for (const m of after.families.get(name)!.metrics)
        expect(Object.keys(m.labels ?? {})).toEqual(['kind']);
  });

  it('counts an export: one successful render, its time and speed, and one successful render job attempt', async () => {
    const a = await newTenant();
    const s = await newSession(a);
    await recordSession(t, a.key, s.id, await h264Camera('alice', 'red', 1));
    const before = await scrape(t);

    const dir = mkdtempSync(joinPath(tmpdir(), 'vss-metrics-'));
    try {
      const job = await exportTo(t, a.key, s.id, joinPath(dir, 'out.mp4'));
      ids.add(job.job_id);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const after = await eventually(
      async () => {
        const now = await scrape(t);
        return moved(before, now, 'vss_job_attempts_total', { kind: RENDER_JOB }) > 0 ? now : null;
      },
      10_000,
      'the render job to settle',
    );
    expect(moved(before, after, 'vss_export_renders_total', { outcome: 'succeeded' })).toBe(1);
    expect(moved(before, after, 'vss_export_renders_total')).toBe(1);
    expect(moved(before, after, 'vss_export_render_seconds', {}, count)).toBe(1);
    expect(moved(before, after, 'vss_export_render_realtime_ratio', {}, count)).toBe(1);
    expect(moved(before, after, 'vss_job_attempts_total', { kind: RENDER_JOB, outcome: 'succeeded' })).toBe(
      1,
    );
    expect(moved(before, after, 'vss_job_attempts_total', { kind: RENDER_JOB })).toBe(1);
  });

  it('counts HTTP requests by route template, method and status, and a path no route matches as (unmatched)', async () => {
    const a = await newTenant();
    const s = await newSession(a);
    const route = { route: '/v1/sessions/:sessionId', method: 'GET', status: '200' };
    const before = await scrape(t);

    for (let i = 0; i < 3; i++)
      expect((await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key })).status).toBe(200);
    const missing = await call(t, 'GET', `/v1/no-such-thing/${s.id}`, { key: a.key });
    expect(missing.status).toBe(404);
    const after = await scrape(t);

    expect(moved(before, after, 'vss_http_request_duration_seconds', route, count)).toBe(3);
    expect(
      moved(
        before,
        after,
        'vss_http_request_duration_seconds',
        { route: '(unmatched)', method: 'GET', status: '404' },
        count,
      ),
    ).toBe(1);
    // The path itself, with its id, is never a label value.
    expect(labelValues(after).filter((v) => v.startsWith('/v1/no-such-thing'))).toEqual([]);
  });

  it('serves the default process metrics', async () => {
    const s = await scrape(t);
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(series(s, name).length, name).toBeGreaterThan(0);
      expect(value(s, name), name).toBeGreaterThanOrEqual(0);
    }
    expect(value(s, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('describes every family, and names each service metric with its unit or _total', async () => {
    const s = await scrape(t);
    const plainCounts = [
      'vss_live_sessions',
      'vss_live_participants',
      'vss_live_receiver_tracks',
      'vss_jobs_queued',
    ];
    const names = [...s.families.keys()];
    expect(names.filter((n) => n.startsWith('vss_')).length).toBeGreaterThan(20);
    for (const f of s.families.values()) expect(f.help.trim(), f.name).not.toBe('');
    for (const name of names.filter((n) => n.startsWith('vss_')))
      expect(
        plainCounts.includes(name) || /_(seconds|bytes|bytes_per_second|events|ratio|total)$/.test(name),
        `${name} names its unit`,
      ).toBe(true);
  });

  it('puts no id in any label: sessions, users, keys, webhooks, exports and projects stay out of the scrape', async () => {
    // Work of its own, so that the check means something when this test runs alone.
    const a = await newTenant();
    const s = await newSession(a);
    await call(t, 'GET', `/v1/sessions/${s.id}`, { key: a.key });
    await call(t, 'GET', `/v1/projects/${a.projectId}`, { cookie: a.cookie });
    const { hook } = await webhook(a, 200);
    await call(t, 'GET', `/v1/webhooks/${hook.id}`, { key: a.key });
    await call(t, 'GET', `/v1/exports/${s.id}`, { key: a.key });

    const scraped = await scrape(t);
    expect(ids.size).toBeGreaterThan(5);
    for (const id of ids) expect(scraped.text).not.toContain(id);
    for (const v of labelValues(scraped)) {
      expect(v, `label value ${v}`).not.toMatch(UUID);
      expect(v, `label value ${v}`).not.toMatch(LONG_ID);
    }
  });

  it('answers 404 on the metrics port for any other path', async () => {
    const base = `http://127.0.0.1:${t.runtime.metricsPort}`;
    for (const path of ['/', '/metric', '/metrics/extra', '/health']) {
      const res = await fetch(base + path);
      expect(res.status, path).toBe(404);
      await res.text();
    }
    const post = await fetch(`${base}/metrics`, { method: 'POST' });
    expect(post.status).toBe(404);
    await post.text();
  });
});

describe('METRICS_PORT', () => {
  /** Listening TCP servers of this process. */
  const listening = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;

  it('unset: no metrics are kept and no port is opened', async () => {
    const servers = listening();
    const t = await startApp();
    try {
      expect(t.runtime.metrics).toBeNull();
      expect(t.runtime.metricsPort).toBeNull();
      expect(listening()).toBe(servers);
    } finally {
      await t.close();
    }
  });

  it('set to a port: /metrics is served there', async () => {
    const port = await freePort();
    const t = await startApp({ env: { METRICS_PORT: String(port) } });
    try {
      expect(t.runtime.metricsPort).toBe(port);
      const s = await scrape(t);
      expect(s.families.has('vss_http_request_duration_seconds')).toBe(true);
    } finally {
      await t.close();
    }
    // Closed with the app.
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});

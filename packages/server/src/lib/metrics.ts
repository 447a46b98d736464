import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RequestHistogram } from './request-histogram.js';

/** Seconds, for request and acknowledgement latencies: 0.5 ms to 10 s. */
const FAST_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds, for work that takes a while (webhook deliveries, renders): 10 ms to an hour. */
const SLOW_SECONDS = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/** The numbers the live hub keeps as it goes, read at each scrape (never a metric call per frame). */
export interface LiveGauges {
  sessions: number;
  participants: number;
  framesReceived: number;
  bytesReceived: number;
  framesDelivered: number;
  bytesDelivered: number;
  framesDropped: number;
  publisherPauses: number;
  /** messages of reduced video layers relayed (not recorded) */
  framesRelayed: number;
  /** receivers' switches to another layer of a video track, and skips to a key frame */
  layerSwitches: number;
  keyframeSkips: number;
  /** key-frame requests: asked of publishers, held back by the interval, from receivers, refused */
  keyframeRequests: { sent: number; limited: number; fromReceivers: number; refused: number };
  /** receivers' video tracks by the layer they get now (`stalled`: waiting for a key frame) */
  tracksByLayer: Record<'0' | '1' | '2' | 'stalled', number>;
  /** each receiver's estimated link rate now (bytes per second) */
  receiverRates: number[];
}

/** The job queue's depth by kind, read from the database at each scrape. */
export interface JobDepth {
  kind: string;
  /** jobs waiting (due now or later) */
  queued: number;
  /** seconds since the oldest due job became due; 0 when none is due */
  oldestDueAgeS: number;
}

/** Where the metrics read what is counted elsewhere; set once the runtime has built those parts. */
export interface MetricSources {
  live?: () => LiveGauges;
  jobs?: () => Promise<JobDepth[]>;
}

/**
 * The process's Prometheus metrics (prom-client), in a registry of their own: tests run many
 * servers in one process, and each must count only its own work. Built only when `METRICS_PORT`
 * is set; every instrumented place takes `Metrics | null` and does nothing without it. Hot paths
 * (every live frame) count in plain numbers that `collect()` reads at scrape time; the metric
 * calls left on request paths are one histogram observation each. No label holds an unbounded
 * value: routes are templates (`/v1/sessions/:sessionId`), kinds and outcomes are fixed sets.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly sources: MetricSources = {};

  /** HTTP: one observation per answered request; its `_count` is the requests by route, method, status. */
  readonly httpRequest: RequestHistogram;
  readonly ackLatency: Histogram;
  readonly appendBatchEvents: Histogram;
  readonly appendBatchBytes: Histogram;
  readonly appendLatency: Histogram;
  readonly recordedBytes: Counter;
  readonly jobAttempts: Counter<'kind' | 'outcome'>;
  readonly webhookDeliveries: Counter<'outcome'>;
  readonly webhookLatency: Histogram;
  readonly exportRenders: Counter<'outcome'>;
  readonly rateLimitLocal: Counter;
  readonly exportSeconds: Histogram;
  readonly exportSpeed: Histogram;
  readonly usageMinutes: Counter;
  readonly usageStorageBytes: Counter<'change'>;

  constructor() {
    const registers = [this.registry];
    const sources = this.sources;
    // The event-loop delay is sampled every 100 ms, not prom-client's default 10: each sample wakes
    // an idle event loop, and at 10 ms those wake-ups cost a lightly loaded server about 4 ms of CPU
    // a second (measured), several percent of a live session's; 10 samples a second still give a
    // scrape every 15 s 150 of them.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });

    this.httpRequest = new RequestHistogram(FAST_SECONDS, this.registry);

    // Live: what the hub counts as it goes, read at each scrape.
    const live = (pick: (g: LiveGauges) => number) =>
      function (this: Gauge | Counter) {
        const g = sources.live?.();
        if (!g) return;
        if (this instanceof Gauge) this.set(pick(g));
        else {
          this.reset();
          this.inc(pick(g));
        }
      };
    new Gauge({
      name: 'vss_live_sessions',
      help: 'Sessions with at least one live connection in this process.',
      registers,
      collect: live((g) => g.sessions),
    });
    new Gauge({
      name: 'vss_live_participants',
      help: 'Live WebSocket connections of participants in this process.',
      registers,
      collect: live((g) => g.participants),
    });
    const liveCounters: Array<[string, string, (g: LiveGauges) => number]> = [
      [
        'vss_live_frames_received_total',
        'Messages published by live clients and accepted, of every video layer (recorded or relayed).',
        (g) => g.framesReceived,
      ],
      [
        'vss_live_received_bytes_total',
        'Payload bytes of the messages accepted from live clients, of every video layer.',
        (g) => g.bytesReceived,
      ],
      [
        'vss_live_frames_delivered_total',
        'Messages sent to live clients (each receiver counts once).',
        (g) => g.framesDelivered,
      ],
      [
        'vss_live_delivered_bytes_total',
        'WebSocket payload bytes of the messages sent to live clients.',
        (g) => g.bytesDelivered,
      ],
      [
        'vss_live_frames_dropped_total',
        'Media messages not sent to a receiver because its link could not carry them: video skipped to the next key frame, audio gone stale.',
        (g) => g.framesDropped,
      ],
      [
        'vss_live_publisher_pauses_total',
        'Times a publisher was paused because the recording was behind (the ingest budget).',
        (g) => g.publisherPauses,
      ],
    ];
    for (const [name, help, pick] of liveCounters)
      new Counter({ name, help, registers, collect: live(pick) });
    liveLayerMetrics(registers, () => sources.live?.());
    this.ackLatency = new Histogram({
      name: 'vss_live_ack_latency_seconds',
      help: 'From the receipt of a publish carrying an id to its acknowledgement, once durable (seconds).',
      buckets: FAST_SECONDS,
      registers,
    });

    // Recording.
    this.recordedBytes = new Counter({
      name: 'vss_recording_stored_bytes_total',
      help: 'Bytes of recorded messages written durably.',
      registers,
    });
    this.appendBatchEvents = new Histogram({
      name: 'vss_recording_append_batch_events',
      help: 'Messages per write batch of the recording.',
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000],
      registers,
    });
    this.appendBatchBytes = new Histogram({
      name: 'vss_recording_append_batch_bytes',
      help: 'Bytes per write batch of the recording.',
      buckets: [1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216],
      registers,
    });
    this.appendLatency = new Histogram({
      name: 'vss_recording_append_seconds',
      help: 'How long a write batch of the recording took to become durable (seconds).',
      buckets: FAST_SECONDS,
      registers,
    });

    // Jobs.
    const depth = new Gauge({
      name: 'vss_jobs_queued',
      help: 'Jobs waiting to run (due now or later), by kind, across every process sharing the database.',
      labelNames: ['kind'],
      registers,
      collect: () => readDepth(),
    });
    const age = new Gauge({
      name: 'vss_jobs_oldest_due_age_seconds',
      help: 'How long the oldest due job of each kind has waited since it became due (seconds; 0 when none is due).',
      labelNames: ['kind'],
      registers,
      collect: () => readDepth(),
    });
    // One query per scrape fills both gauges (the registry collects its metrics concurrently).
    let reading: Promise<void> | null = null;
    const readDepth = () =>
      (reading ??= (async () => {
        try {
          if (!sources.jobs) return;
          const rows = await sources.jobs();
          depth.reset();
          age.reset();
          for (const r of rows) {
            depth.set({ kind: r.kind }, r.queued);
            age.set({ kind: r.kind }, r.oldestDueAgeS);
          }
        } finally {
          reading = null;
        }
      })());
    this.jobAttempts = new Counter({
      name: 'vss_job_attempts_total',
      help: 'Job attempts finished, by kind and outcome (succeeded; retried later; failed for good; released to another worker).',
      labelNames: ['kind', 'outcome'],
      registers,
    });

    // Webhooks.
    this.webhookDeliveries = new Counter({
      name: 'vss_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome (succeeded: a 2xx answer; failed: anything else).',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookLatency = new Histogram({
      name: 'vss_webhook_delivery_latency_seconds',
      help: 'From the event to its successful delivery to a webhook, retries included (seconds).',
      buckets: SLOW_SECONDS,
      registers,
    });

    this.rateLimitLocal = new Counter({
      name: 'vss_rate_limit_local_total',
      help: 'Rate-limit counts taken in this process alone because Redis could not be reached.',
      registers,
    });

    // Exports.
    this.exportRenders = new Counter({
      name: 'vss_export_renders_total',
      help: 'MP4 renders finished, by outcome (succeeded; failed; interrupted, to be taken up again).',
      labelNames: ['outcome'],
      registers,
    });
    this.exportSeconds = new Histogram({
      name: 'vss_export_render_seconds',
      help: 'Wall-clock time of a successful render (seconds).',
      buckets: SLOW_SECONDS,
      registers,
    });
    this.exportSpeed = new Histogram({
      name: 'vss_export_render_realtime_ratio',
      help: 'Speed of a successful render: seconds of video made per second of rendering (× real time).',
      buckets: [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64],
      registers,
    });

    // Usage.
    this.usageMinutes = new Counter({
      name: 'vss_usage_streaming_minutes_total',
      help: 'Participant streaming minutes recorded for billing by this process.',
      registers,
    });
    this.usageStorageBytes = new Counter({
      name: 'vss_usage_storage_bytes_total',
      help: 'Changes of stored bytes recorded for billing by this process, by direction (added; removed).',
      labelNames: ['change'],
      registers,
    });
  }

  /** Counts a finished job attempt by its outcome: succeeded, released, retried later, or failed for good. */
  attempt(kind: string, outcome: { ok: boolean; release?: boolean }, retrying: boolean): void {
    const label = outcome.ok ? 'succeeded' : outcome.release ? 'released' : retrying ? 'retried' : 'failed';
    this.jobAttempts.inc({ kind, outcome: label });
  }

  /** Records usage rows as written: streaming minutes add up, storage rows are signed changes. */
  usage(type: 'streaming_minutes' | 'storage', value: number): void {
    if (type === 'streaming_minutes') this.usageMinutes.inc(value);
    else if (value > 0) this.usageStorageBytes.inc({ change: 'added' }, value);
    else if (value < 0) this.usageStorageBytes.inc({ change: 'removed' }, -value);
  }
}

/** The metrics endpoint: `GET /metrics` in the Prometheus text format, on its own port. */
export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `/metrics` on its own port (`METRICS_PORT`, bound to `HOST`), apart from the API: it
 * needs no key, and a firewall or a Kubernetes port keeps it off the public address. A plain
 * `node:http` server, since it answers one route.
 */
export async function serveMetrics(metrics: Metrics, port: number, host: string): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: Error) => {
        res
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end(`metrics failed: ${err.message}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The live layers: what receivers get of each video track, how often that changes, the key
 * frames asked for, and the receivers' estimated link rates (a histogram of the rates at the
 * scrape: one observation per receiver, no ids in labels).
 */
function liveLayerMetrics(registers: Registry[], read: () => LiveGauges | undefined): void {
  const total = (name: string, help: string, pick: (g: LiveGauges) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect(this: Counter) {
        const g = read();
        if (!g) return;
        this.reset();
        this.inc(pick(g));
      },
    });
  total(
    'vss_live_frames_relayed_total',
    'Messages of reduced video layers relayed to receivers (never recorded).',
    (g) => g.framesRelayed,
  );
  total(
    'vss_live_layer_switches_total',
    "Receivers' switches to another layer of a video track.",
    (g) => g.layerSwitches,
  );
  total(
    'vss_live_keyframe_skips_total',
    "Times a receiver's queued video of a track was dropped and the track waited for its next key frame.",
    (g) => g.keyframeSkips,
  );
  new Counter({
    name: 'vss_live_keyframe_requests_total',
    help: 'Key-frame requests: sent to publishers, held back (one per track and layer every 500 ms), asked by receivers, refused (unknown track or too often).',
    labelNames: ['outcome'],
    registers,
    collect(this: Counter<'outcome'>) {
      const g = read();
      if (!g) return;
      this.reset();
      for (const [outcome, n] of Object.entries(g.keyframeRequests)) this.inc({ outcome }, n);
    },
  });
  new Gauge({
    name: 'vss_live_receiver_tracks',
    help: "Receivers' video tracks in this process by the layer each gets now (0 full, 1 and 2 reduced, stalled: waiting for a key frame).",
    labelNames: ['layer'],
    registers,
    collect(this: Gauge<'layer'>) {
      const g = read();
      if (!g) return;
      for (const [layer, n] of Object.entries(g.tracksByLayer)) this.set({ layer }, n);
    },
  });
  new Histogram({
    name: 'vss_live_receiver_rate_bytes_per_second',
    help: "Each live receiver's estimated link rate at the scrape (bytes per second), from the server's pings.",
    buckets: [4_000, 16_000, 32_000, 64_000, 125_000, 250_000, 500_000, 1_000_000, 4_000_000, 16_000_000],
    registers,
    collect(this: Histogram) {
      const g = read();
      if (!g) return;
      this.reset();
      for (const r of g.receiverRates) this.observe(r);
    },
  });
}

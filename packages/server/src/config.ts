import { randomBytes, hkdfSync } from 'node:crypto';
import { accessSync, chmodSync, constants, existsSync, mkdirSync } from 'node:fs';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { S3Config } from './blobs/s3.js';

/** Raised for any invalid variable; its message is the one line printed before start-up stops. */
export class ConfigError extends Error {}

/** Keys derived from the root secret, one per purpose so that leaking one use leaks no other. */
export interface DerivedKeys {
  jwt: Buffer;
  apiKeyPepper: Buffer;
  cookie: Buffer;
  tokens: Buffer;
  /** seals webhook signing secrets at rest */
  webhooks: Buffer;
}

/** The whole runtime configuration: read once at start, validated, frozen. Nothing else reads process.env. */
export interface Config {
  port: number;
  host: string;
  publicBaseUrl: string;
  dataDir: string;
  /** DATA_DIR/secret.key while the root secret is kept there (SECRET_KEY unset), else null */
  secretFile: string | null;
  databaseUrl: string | null;
  redisUrl: string | null;
  /** REDIS_KEY_PREFIX: begins every key and channel vss uses in Redis, so deployments can share one */
  redisKeyPrefix: string;
  /** FFMPEG_PATH: the ffmpeg exports run, checked to be an executable file at start */
  ffmpegPath: string | null;
  /** PATH: where an `ffmpeg` is looked for when FFMPEG_PATH is not set */
  searchPath: string;
  webhookTimeoutMs: number;
  webhookRetryDelaysS: number[];
  webhookAllowPrivateUrls: boolean;
  /** delays before each retry of a recording's finalize and seal jobs; after the last, `recording.failed` */
  recordingRetryDelaysS: number[];
  /** OAUTH_ALLOW_PRIVATE_CLIENT_URLS: client metadata documents may be fetched from private addresses (tests, local development) */
  oauthAllowPrivateClientUrls: boolean;
  /** OAUTH_CLIENT_METADATA_TIMEOUT_MS: the whole fetch of a client metadata document, from resolution to its last byte */
  oauthClientMetadataTimeoutMs: number;
  freeTierStreamingMinutes: number;
  freeTierStorageGb: number;
  pricePerStreamingMinute: number;
  pricePerGbMonth: number;
  billingProvider: 'none' | 'stripe';
  stripeSecretKey: string | null;
  stripeWebhookSecret: string | null;
  /** STRIPE_API_URL: where the Stripe client sends requests (a proxy, a local stand-in); null: Stripe's own */
  stripeApiUrl: string | null;
  /** BILLING_RETURN_ORIGINS: origins besides PUBLIC_BASE_URL's that the billing portal may send a person back to */
  billingReturnOrigins: string[];
  /** seconds between writes of metered usage (participant-minutes, stored bytes); a crash loses at most this */
  usageFlushIntervalS: number;
  rateLimitPerKey: number;
  rateLimitPerIp: number;
  sessionDepartureTimeoutS: number;
  /** seconds between WebSocket pings; a connection that missed one is closed */
  wsHeartbeatS: number;
  /** received media (bytes) that may wait for the stream store before publishers are paused */
  liveIngestBufferBytes: number;
  /** LIVE_CLOCK_SKEW_S in ms: a publish's `timestamp_ms` further from the server's clock is refused */
  liveClockSkewMs: number;
  /** LIVE_TEXT_MB_PER_SESSION in bytes: chat and director commands one process records of a session */
  liveTextBytesPerSession: number;
  /** this process claims and runs jobs (webhook deliveries, exports); false: `npm run worker` does */
  jobWorker: boolean;
  /** MP4 renders one worker process runs at once */
  exportConcurrency: number;
  /** seconds a render's claim lasts without renewal: a crashed worker's export is taken up after this */
  exportLeaseS: number;
  /** EXPORT_DEADLINE_BASE_S + EXPORT_DEADLINE_FACTOR × the recorded span: past it a render stops and fails */
  exportDeadline: { baseS: number; factor: number };
  /** EXPORT_RUNNING_PER_ORG, EXPORT_QUEUE_PER_ORG: an organisation's renders, exports pending at once */
  exportPerOrg: { running: number; queued: number };
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** LOG_FORMAT: `auto` writes readable lines when standard output is a terminal, JSON otherwise */
  logFormat: 'auto' | 'json' | 'pretty';
  /** METRICS_PORT: where `/metrics` is served (bound like HOST); null: no metrics are kept */
  metricsPort: number | null;
  /** MAX_CONNECTIONS: open connections (HTTP and WebSocket) in all; past it new ones are closed at once */
  maxConnections: number;
  /**
   * MAX_CONNECTIONS_PER_ADDRESS: open connections from one client address (the socket's: a
   * reverse proxy's when behind one); past it that address's new ones are closed at once; 0: no cap
   */
  maxConnectionsPerAddress: number;
  /** DRAIN_TIMEOUT_S: after SIGTERM, the process exits within this many seconds */
  drainTimeoutS: number;
  /**
   * DRAIN_GRACE_MS: after SIGTERM the HTTP port stays open, /ready answering 503 `draining`, for
   * at least this long, so that a load balancer's health check sees the refusal first
   */
  drainGraceMs: number;
  /** S3_*: the bucket for sealed recordings and export files; null keeps them in DATA_DIR */
  s3: S3Config | null;
  keys: DerivedKeys;
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function optional(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v === '' ? null : v;
}

function executable(env: Env, name: string): string | null {
  const path = optional(env, name);
  if (path === null) return null;
  try {
    accessSync(path, constants.X_OK);
    if (statSync(path).isFile()) return path;
  } catch {
    // reported below
  }
  throw new ConfigError(`${name} must name an executable file, got "${path}"`);
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function num(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0)
    throw new ConfigError(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

/** A comma-separated list of seconds (fractions allowed), e.g. a schedule of retries. */
function seconds(env: Env, name: string, fallback: string): number[] {
  const raw = str(env, name, fallback);
  return raw.split(',').map((part) => {
    const s = part.trim();
    if (!/^\d+(\.\d+)?$/.test(s))
      throw new ConfigError(`${name} must be a comma-separated list of seconds, got "${raw}"`);
    return Number(s);
  });
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = str(env, name, fallback);
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = optional(env, name);
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${redactUrl(raw)}"`);
  }
  if (!protocols.includes(parsed.protocol))
    throw new ConfigError(`${name} must start with ${protocols.map((p) => p + '//').join(' or ')}`);
  return raw;
}

/** A comma-separated list of http(s) origins (scheme, host and port; no path), each as URL.origin spells it. */
function origins(env: Env, name: string): string[] {
  const raw = str(env, name, '');
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      let parsed: URL | null = null;
      try {
        parsed = new URL(part);
      } catch {
        // reported below
      }
      if (
        !parsed ||
        (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') ||
        parsed.username ||
        parsed.password ||
        parsed.pathname !== '/' ||
        parsed.search ||
        parsed.hash
      )
        throw new ConfigError(
          `${name} must be a comma-separated list of origins such as https://app.example.com, got "${part}"`,
        );
      return parsed.origin;
    });
}

function redactUrl(raw: string): string {
  return raw.replace(/\/\/[^@/]*@/, '//***@');
}

/** Reads SECRET_KEY, or the secret kept in DATA_DIR, generating it on first start. */
function rootSecret(env: Env, dataDir: string): Buffer {
  const given = optional(env, 'SECRET_KEY');
  if (given !== null) {
    if (given.length < 32) throw new ConfigError('SECRET_KEY must be at least 32 characters');
    return Buffer.from(given, 'utf8');
  }
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length < 32)
      throw new ConfigError(`SECRET_KEY is unset and ${file} is damaged: delete it or set SECRET_KEY`);
    return Buffer.from(kept, 'utf8');
  }
  const fresh = randomBytes(32).toString('hex');
  writeFileSync(file, fresh + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return Buffer.from(fresh, 'utf8');
}

function derive(root: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `vss:${purpose}`, 32));
}

/**
 * The bucket, when S3_BUCKET is set: its endpoint (an S3-compatible server's URL; AWS's for the
 * region when unset), region, credentials (both or neither; the SDK's default chain when neither),
 * path-style addressing and a key prefix. Any other S3_* variable without S3_BUCKET is a mistake,
 * not something to ignore.
 */
function s3Config(env: Env): S3Config | null {
  const bucket = optional(env, 'S3_BUCKET');
  if (bucket === null) {
    const stray = Object.keys(env).filter((k) => k.startsWith('S3_') && optional(env, k) !== null);
    if (stray.length) throw new ConfigError(`${stray.sort().join(', ')} set without S3_BUCKET`);
    return null;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError(`S3_BUCKET must be a bucket name (3 to 63 of a-z, 0-9, '.', '-'), got "${bucket}"`);
  const accessKeyId = optional(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = optional(env, 'S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === null) !== (secretAccessKey === null))
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together: set both or neither');
  const prefix = str(env, 'S3_PREFIX', '');
  if (prefix.startsWith('/') || (prefix !== '' && !prefix.endsWith('/')))
    throw new ConfigError(
      `S3_PREFIX must be a key prefix ending in '/' (and not starting with one), got "${prefix}"`,
    );
  return {
    bucket,
    endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
    region: str(env, 'S3_REGION', 'us-east-1'),
    accessKeyId,
    secretAccessKey,
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', false),
    prefix,
  };
}

/** Builds the configuration from an environment (process.env in production, a literal in tests). */
export function loadConfig(env: Env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = str(env, 'HOST', '127.0.0.1');
  const dataDir = resolve(str(env, 'DATA_DIR', './data'));
  const publicBaseUrl = (
    url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ??
    `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  ).replace(/\/+$/, '');
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const redisKeyPrefix = str(env, 'REDIS_KEY_PREFIX', 'vss:');
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(redisKeyPrefix))
    throw new ConfigError(`REDIS_KEY_PREFIX must be 1-64 of A-Z a-z 0-9 : _ . -, got "${redisKeyPrefix}"`);
  const billingProvider = oneOf(env, 'BILLING_PROVIDER', 'none', ['none', 'stripe'] as const);
  const stripeSecretKey = optional(env, 'STRIPE_SECRET_KEY');
  const stripeWebhookSecret = optional(env, 'STRIPE_WEBHOOK_SECRET');
  if (billingProvider === 'stripe' && (!stripeSecretKey || !stripeWebhookSecret))
    throw new ConfigError(
      'STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are required when BILLING_PROVIDER=stripe',
    );

  const stripeApiUrl = optional(env, 'STRIPE_API_URL');
  if (stripeApiUrl !== null && !/^https?:\/\/[^/]+\/?$/.test(stripeApiUrl))
    throw new ConfigError(
      `STRIPE_API_URL must be an http(s) origin such as https://api.stripe.com, got "${stripeApiUrl}"`,
    );

  const logLevel = oneOf(env, 'LOG_LEVEL', 'info', [
    'fatal',
    'error',
    'warn',
    'info',
    'debug',
    'trace',
    'silent',
  ] as const);

  const s3 = s3Config(env);
  const drainTimeoutS = int(env, 'DRAIN_TIMEOUT_S', 30, 1, 3600);
  // Unset, the grace is 5 s, or half the drain timeout when that is shorter: a short
  // DRAIN_TIMEOUT_S alone must not stop the process from starting.
  const drainGraceMs = int(env, 'DRAIN_GRACE_MS', Math.min(5000, drainTimeoutS * 500), 0, 600_000);
  if (drainGraceMs >= drainTimeoutS * 1000)
    throw new ConfigError(
      `DRAIN_GRACE_MS must be less than DRAIN_TIMEOUT_S (${drainTimeoutS} s), got ${drainGraceMs}`,
    );

  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (err) {
    throw new ConfigError(`DATA_DIR ${dataDir} cannot be created: ${(err as Error).message}`);
  }
  const root = rootSecret(env, dataDir);

  const config: Config = {
    port,
    host,
    publicBaseUrl,
    dataDir,
    secretFile: optional(env, 'SECRET_KEY') === null ? join(dataDir, 'secret.key') : null,
    databaseUrl,
    redisUrl,
    redisKeyPrefix,
    ffmpegPath: executable(env, 'FFMPEG_PATH'),
    searchPath: env.PATH ?? '',
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 5000, 1, 600_000),
    webhookRetryDelaysS: seconds(env, 'WEBHOOK_RETRY_DELAYS_S', '120,240,480,960,1920,3840,7680,15360'),
    recordingRetryDelaysS: seconds(env, 'RECORDING_RETRY_DELAYS_S', '10,20,40,80,160,320,640'),
    webhookAllowPrivateUrls: bool(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', false),
    oauthAllowPrivateClientUrls: bool(env, 'OAUTH_ALLOW_PRIVATE_CLIENT_URLS', false),
    oauthClientMetadataTimeoutMs: int(env, 'OAUTH_CLIENT_METADATA_TIMEOUT_MS', 5000, 100, 60_000),
    freeTierStreamingMinutes: num(env, 'FREE_TIER_STREAMING_MINUTES', 1000),
    freeTierStorageGb: num(env, 'FREE_TIER_STORAGE_GB', 5),
    pricePerStreamingMinute: num(env, 'PRICE_PER_STREAMING_MINUTE', 0.004),
    pricePerGbMonth: num(env, 'PRICE_PER_GB_MONTH', 0.02),
    billingProvider,
    stripeSecretKey,
    stripeWebhookSecret,
    stripeApiUrl,
    billingReturnOrigins: origins(env, 'BILLING_RETURN_ORIGINS'),
    usageFlushIntervalS: int(env, 'USAGE_FLUSH_INTERVAL_S', 30, 1, 60),
    rateLimitPerKey: int(env, 'RATE_LIMIT_PER_KEY', 1200, 1, 100_000_000),
    rateLimitPerIp: int(env, 'RATE_LIMIT_PER_IP', 300, 1, 100_000_000),
    sessionDepartureTimeoutS: int(env, 'SESSION_DEPARTURE_TIMEOUT_S', 20, 0, 86_400),
    wsHeartbeatS: int(env, 'WS_HEARTBEAT_S', 15, 1, 3600),
    liveIngestBufferBytes: int(env, 'LIVE_INGEST_BUFFER_MB', 64, 1, 4096) * 1024 * 1024,
    liveClockSkewMs: int(env, 'LIVE_CLOCK_SKEW_S', 120, 1, 86_400) * 1000,
    liveTextBytesPerSession: num(env, 'LIVE_TEXT_MB_PER_SESSION', 32) * 1024 * 1024,
    jobWorker: bool(env, 'JOB_WORKER', true),
    exportConcurrency: int(env, 'EXPORT_CONCURRENCY', 1, 1, 64),
    exportLeaseS: int(env, 'EXPORT_LEASE_S', 30, 2, 3600),
    exportDeadline: {
      baseS: int(env, 'EXPORT_DEADLINE_BASE_S', 120, 0, 86_400),
      factor: num(env, 'EXPORT_DEADLINE_FACTOR', 3),
    },
    exportPerOrg: {
      running: int(env, 'EXPORT_RUNNING_PER_ORG', 2, 1, 1000),
      queued: int(env, 'EXPORT_QUEUE_PER_ORG', 20, 1, 100_000),
    },
    logLevel,
    logFormat: oneOf(env, 'LOG_FORMAT', 'auto', ['auto', 'json', 'pretty'] as const),
    metricsPort: optional(env, 'METRICS_PORT') === null ? null : int(env, 'METRICS_PORT', 0, 0, 65535),
    maxConnections: int(env, 'MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    maxConnectionsPerAddress: int(env, 'MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 1_000_000),
    drainTimeoutS,
    drainGraceMs,
    s3,
    keys: {
      jwt: derive(root, 'jwt'),
      apiKeyPepper: derive(root, 'api-key-pepper'),
      cookie: derive(root, 'cookie'),
      tokens: derive(root, 'tokens'),
      webhooks: derive(root, 'webhook-secrets'),
    },
  };
  for (const part of [config.keys, config.webhookRetryDelaysS, config.recordingRetryDelaysS])
    Object.freeze(part);
  for (const part of [config.exportDeadline, config.billingReturnOrigins, config.s3]) Object.freeze(part);
  return Object.freeze(config);
}

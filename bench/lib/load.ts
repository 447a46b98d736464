import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationS: number;
  /** requests per second over all connections (autocannon overallRate); omitted: as fast as possible */
  overallRate?: number;
  /** the status every answer must have (default: any 2xx) */
  expectStatus?: number;
}

/** What one autocannon run measured. Latencies in ms, from each request's own timing (not bucketed). */
export interface LoadResult {
  rps: number;
  requests: number;
  durationS: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** answers not of the expected status, plus connection errors and timeouts */
  failures: number;
  statusCounts: Record<string, number>;
}

/** The q-quantile (0..1) of an ascending array, nearest-rank. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

/** The median; the mean of the two middle values for an even count. */
export function median(values: number[]): number {
  const v = Float64Array.from(values).sort();
  const n = v.length;
  if (n === 0) return NaN;
  return n % 2 ? v[(n - 1) / 2]! : (v[n / 2 - 1]! + v[n / 2]!) / 2;
}

/**
 * Runs autocannon in this process. Latencies are collected from its `response` events (exact,
 * sub-millisecond) rather than its histogram, whose 1 ms resolution hides the interesting part;
 * with overallRate autocannon's own histogram also adds coordinated-omission fill-ins.
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  let wrong = 0;
  const expected = options.expectStatus;
  return new Promise((resolveRun, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        ...(options.body !== undefined ? { body: options.body } : {}),
        connections: options.connections,
        duration: options.durationS,
        ...(options.overallRate ? { overallRate: Math.round(options.overallRate) } : {}),
        timeout: 10,
      },
      (err, result) => {
        if (err) return reject(err);
        latencies.sort((a, b) => a - b);
        const ok = latencies.length;
        const sum = latencies.reduce((a, b) => a + b, 0);
        resolveRun({
          rps: ok / result.duration,
          requests: ok,
          durationS: result.duration,
          p50: quantile(latencies, 0.5),
          p90: quantile(latencies, 0.9),
          p99: quantile(latencies, 0.99),
          max: latencies[ok - 1] ?? NaN,
          mean: ok ? sum / ok : NaN,
          failures: wrong + result.errors,
          statusCounts,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
      const good = expected === undefined ? statusCode >= 200 && statusCode < 300 : statusCode === expected;
      if (good) latencies.push(responseTime);
      else wrong++;
    });
  });
}

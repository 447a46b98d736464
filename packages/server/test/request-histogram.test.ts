import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestHistogram } from '../src/lib/request-histogram.js';

const BOUNDS = [0.001, 0.01, 0.1, 1];

describe('the HTTP request histogram', () => {
  it("prints exactly what prom-client's Histogram prints for the same observations", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const mine = new RequestHistogram(BOUNDS, ours);
    const reference = new Histogram({
      name: 'vss_http_request_duration_seconds',
      help: mine.help,
      labelNames: ['route', 'method', 'status'],
      buckets: BOUNDS,
      registers: [theirs],
    });
    // On a bound, between bounds, above every bound; three series.
    const seen: Array<[string, string, number, number]> = [
      ['/v1/sessions/:sessionId', 'GET', 200, 0.0004],
      ['/v1/sessions/:sessionId', 'GET', 200, 0.01],
      ['/v1/sessions/:sessionId', 'GET', 200, 0.05],
      ['/v1/sessions/:sessionId', 'GET', 404, 3],
      ['/v1/sessions', 'POST', 201, 0.001],
      ['(unmatched)', 'GET', 404, 0.0002],
    ];
    for (const [route, method, status, s] of seen) {
      mine.observe(mine.cell(route, method, status), s);
      reference.observe({ route, method, status }, s);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('keeps one series per route, method and status, and hands the same one back', () => {
    const h = new RequestHistogram(BOUNDS, new Registry());
    const a = h.cell('/a', 'GET', 200);
    expect(h.cell('/a', 'GET', 200)).toBe(a);
    expect(h.cell('/a', 'GET', 500)).not.toBe(a);
    expect(h.cell('/a', 'POST', 200)).not.toBe(a);
    h.observe(a, 2);
    expect(a).toMatchObject({ count: 1, sum: 2, perBucket: [0, 0, 0, 0, 1] });
  });
});

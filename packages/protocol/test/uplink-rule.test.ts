// The shared uplink rule (src/uplink-rule.ts) fed with scripted round trips: a probe every 100 ms
// whose answer takes `rttMs(t)`, a check every UPLINK_CHECK_MS. The adapters' specifications
// (cli/test/uplink.test.ts, web/test/uplink.test.ts) drive it through a simulated link; this one
// pins the rules that a simulation reaches only by chance.
import { describe, expect, it } from 'vitest';
import { UPLINK_CHECK_MS, UplinkRule } from '../src/index.js';

const PROBE_EVERY_MS = 100;

/** Runs the rule from `from` to `to` (ms); returns the steps it took, with their times (s). */
function run(rule: UplinkRule, from: number, to: number, rttMs: (t: number) => number) {
  const steps: { s: number; step: number }[] = [];
  const answers: { at: number; answer: (now: number | null) => void }[] = [];
  let sent = 0;
  for (let t = from; t < to; t += 5) {
    if (t % PROBE_EVERY_MS === 0) {
      sent += 1000;
      answers.push({ at: t + rttMs(t), answer: rule.probe(t, sent) });
    }
    for (const a of answers.filter((a) => a.at <= t)) a.answer(a.at);
    answers.splice(0, answers.length, ...answers.filter((a) => a.at > t));
    if (t % UPLINK_CHECK_MS === 0) {
      const was = rule.want;
      rule.check(t, { buffered: 0, sentBytes: sent });
      if (rule.want !== was) steps.push({ s: t / 1000, step: rule.want });
    }
  }
  return steps;
}

describe('the uplink rule', () => {
  it('starts where it is told, and steps up one step at a time while the link stays quiet', () => {
    const rule = new UplinkRule({ maxStep: 6, start: 4, now: 0 });
    expect(rule.want).toBe(4);
    const steps = run(rule, 0, 15_000, () => 5);
    expect(steps.map((x) => x.step)).toEqual([3, 2, 1, 0]);
    // 2.5 s for the first step (nothing has queued yet), then 2.5 s each: the link never queued.
    expect(steps[0]!.s).toBeCloseTo(2.5, 0);
  });

  it('a step up that queues falls back within its trial, and is not tried again for 20 s though its rate is unknown', () => {
    const rule = new UplinkRule({ maxStep: 2, now: 0 });
    // Quiet; then, from the first step up on, every probe waits 200 ms more until 2 s after the
    // step back down (the queue drains); quiet again for 40 s.
    let upAt = Infinity;
    let downAt = Infinity;
    const steps = run(rule, 0, 45_000, (t) => {
      if (rule.want === 1 && upAt === Infinity) upAt = t;
      if (upAt !== Infinity && rule.want === 2 && downAt === Infinity) downAt = t;
      return t >= upAt && t < downAt + 2000 ? 205 : 5;
    });
    const ups = steps.filter((x) => x.step === 1).map((x) => x.s);
    const downs = steps.filter((x) => x.step === 2).map((x) => x.s);
    expect(downs[0]! - ups[0]!, JSON.stringify(steps)).toBeLessThanOrEqual(3);
    // The memory of a full link doubles (10 s to 20 s) with the failed trial, and the step that
    // failed waits it out even when nothing queues meanwhile.
    expect(ups[1]! - downs[0]!, JSON.stringify(steps)).toBeGreaterThanOrEqual(20);
  });

  it('a probe that will not be answered (the connection dropped) is forgotten, not counted as a queue', () => {
    const rule = new UplinkRule({ maxStep: 2, start: 0, now: 0 });
    rule.probe(0, 1000)(null);
    const steps = run(rule, 0, 5000, () => 5);
    expect(steps).toEqual([]);
    expect(rule.delayMs).toBeLessThan(40);
  });

  it('a pause of the server shorter than a second is no full link; a queue that stays is', () => {
    const paused = new UplinkRule({ maxStep: 2, start: 0, now: 0 });
    // Everything sent during a 900 ms pause is answered when it ends.
    expect(run(paused, 0, 10_000, (t) => (t >= 3000 && t < 3900 ? 3900 - t + 5 : 5))).toEqual([]);
    const full = new UplinkRule({ maxStep: 2, start: 0, now: 0 });
    const steps = run(full, 0, 10_000, (t) => (t >= 3000 ? 400 : 5));
    expect(steps[0]?.step, JSON.stringify(steps)).toBe(1);
    expect(steps[0]!.s).toBeLessThan(5);
  });
});

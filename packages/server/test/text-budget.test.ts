import { describe, expect, it } from 'vitest';
import {
  SessionText,
  TEXT_BYTES_BURST,
  TEXT_BYTES_PER_S,
  TEXT_MESSAGES_BURST,
  TEXT_MESSAGES_PER_S,
  TextRate,
} from '../src/modules/live/text-budget.js';

/** The bounds of chat and director commands, on a clock the test moves. */
describe('a connection’s rate of chat and director commands', () => {
  it('takes a burst of small messages, then one every 1/10 s', () => {
    const r = new TextRate(0);
    for (let i = 0; i < TEXT_MESSAGES_BURST; i++) expect(r.take(100, 0)).toBe(true);
    expect(r.take(100, 0)).toBe(false);
    expect(r.take(100, 1000 / TEXT_MESSAGES_PER_S - 1)).toBe(false);
    expect(r.take(100, 1000 / TEXT_MESSAGES_PER_S + 1)).toBe(true);
  });

  it('takes 64 KiB at once, then 16 KiB a second, whatever the number of messages', () => {
    const r = new TextRate(0);
    expect(r.take(TEXT_BYTES_BURST - 10, 0)).toBe(true);
    expect(r.take(100, 0)).toBe(false);
    // a refused message takes nothing: a small one still passes
    expect(r.take(10, 0)).toBe(true);
    expect(r.take(TEXT_BYTES_PER_S, 999)).toBe(false);
    expect(r.take(TEXT_BYTES_PER_S, 1000)).toBe(true);
  });

  it('never holds more than the burst after a long quiet', () => {
    const r = new TextRate(0);
    expect(r.take(TEXT_BYTES_BURST, 3_600_000)).toBe(true);
    expect(r.take(1024, 3_600_000)).toBe(false);
  });
});

describe("a session's recorded text", () => {
  it('counts up to its limit and refuses what would pass it', () => {
    const s = new SessionText(1000);
    expect(s.take(600)).toBe(true);
    expect(s.take(500)).toBe(false);
    expect(s.take(400)).toBe(true);
    expect(s.take(1)).toBe(false);
  });
});

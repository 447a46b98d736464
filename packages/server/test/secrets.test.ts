import { describe, expect, it } from 'vitest';
import { randomToken } from '../src/lib/secrets.js';

describe('randomToken', () => {
  // Invitation, join-link and replay tokens are pasted into `vss` as arguments; one that began
  // with "-" was read as an option ("unknown option") and the command failed. In base64url one
  // token in 64 would: 2,000 draws hold such a token unless the generator excludes it.
  it('never begins with "-", so a token can be given to a command line as an argument', () => {
    const tokens = Array.from({ length: 2000 }, () => randomToken(32));
    expect(tokens.filter((t) => t.startsWith('-'))).toEqual([]);
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const t of tokens) expect(t).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
  });
});

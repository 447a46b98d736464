// What a process remembers of the API keys it resolved: a key in steady use keeps being answered
// from memory however many other keys pass through (the one unused longest is forgotten first),
// instead of every key being read again from the database whenever the cache fills. A unit
// specification of keysService's cache over a key table in memory that counts its reads.
import { describe, expect, it } from 'vitest';
import type { Config } from '../src/config.js';
import type { RequestReads } from '../src/db/request-reads.js';
import { hmacHex } from '../src/lib/secrets.js';
import { keysService } from '../src/modules/keys/service.js';
import type { KeysStore } from '../src/modules/keys/store.js';
import type { ProjectsService } from '../src/modules/projects/service.js';

const PEPPER = Buffer.from('pepper');
const secretOf = (i: number) => `sk_live_${String(i).padStart(32, '0')}`;

describe('the API key cache', () => {
  it('keeps a key in steady use in memory while 10,500 other keys pass through', async () => {
    const reads = new Map<string, number>();
    const table = {
      keyByHash: async (hash: string) => {
        reads.set(hash, (reads.get(hash) ?? 0) + 1);
        const i = Number(hash === hmacHex(PEPPER, secretOf(0)) ? 0 : (byHash.get(hash) ?? -1));
        return i < 0
          ? undefined
          : {
              id: `key-${i}`,
              org_id: 'org',
              project_id: 'project',
              kind: 'api_key',
              last_used_at: Date.now(),
            };
      },
    };
    const byHash = new Map<string, number>();
    for (let i = 1; i <= 10_500; i++) byHash.set(hmacHex(PEPPER, secretOf(i)), i);
    const keys = keysService({
      config: { keys: { apiKeyPepper: PEPPER } } as unknown as Config,
      store: { touch: async () => undefined } as unknown as KeysStore,
      projects: {} as ProjectsService,
      reads: table as unknown as RequestReads,
      revocations: { publish: () => undefined, subscribe: () => undefined },
    });
    const hot = secretOf(0);
    expect(await keys.resolve(hot)).toMatchObject({ credentialId: 'key-0' });
    for (let i = 1; i <= 10_500; i++) {
      expect(await keys.resolve(secretOf(i))).toMatchObject({ credentialId: `key-${i}` });
      // The key in use answers from memory: synchronously, with no read.
      if (i % 50 === 0) expect(keys.resolve(hot)).toMatchObject({ credentialId: 'key-0' });
    }
    expect(reads.get(hmacHex(PEPPER, hot))).toBe(1);
    // The one unused longest was forgotten: it is read again.
    await keys.resolve(secretOf(1));
    expect(reads.get(hmacHex(PEPPER, secretOf(1)))).toBe(2);
  });
});

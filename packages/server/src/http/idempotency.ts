import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { isUniqueViolation } from '../db/open.js';
import { transaction } from '../db/transaction.js';
import type { Db, Engine, Trx } from '../db/types.js';
import { createHmac } from 'node:crypto';
import { seal, unseal } from '../lib/seal.js';
import { sha256Hex } from '../lib/secrets.js';
import { now, DAY_MS } from '../lib/time.js';
import { BadRequest, Conflict } from './errors.js';

/** How long a stored answer is replayed. */
export const IDEMPOTENCY_RETENTION_MS = DAY_MS;

/** What a creating handler produces: its status and its envelope. */
export interface Created<T> {
  status: number;
  body: T;
}

/**
 * Idempotency-Key support for creating POSTs. The key is claimed by inserting
 * its row in the same transaction as the create, so a crash can never leave an object without
 * its key or a key without its object; an error rolls both back, which releases the key.
 * A second request while the first still runs gets 409: in process through `inFlight`,
 * across PostgreSQL clients through a transaction-scoped advisory lock.
 *
 * Stored answers can hold secrets (a new API key, an invitation token). The row therefore keeps
 * only an HMAC of the client's Idempotency-Key, and the answer encrypted (AES-256-GCM) under a
 * key derived from the server secret and the client's Idempotency-Key: only a retry that
 * presents the key can read it back, and a copy of the database cannot.
 */
export class Idempotency {
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly engine: Engine,
    private readonly secret: Buffer,
  ) {}

  private derive(label: string, scope: string, key: string): Buffer {
    return createHmac('sha256', this.secret).update(`${label}\n${scope}\n${key}`).digest();
  }

  private seal(scope: string, key: string, body: string): string {
    return seal(this.derive('idempotency-body', scope, key), body);
  }

  private open(scope: string, key: string, sealed: string): string {
    return unseal(this.derive('idempotency-body', scope, key), sealed);
  }

  /** Runs `create` once per (credential, method, path, key) and replays its answer on retries. */
  async run<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    create: (trx: Db | Trx) => Promise<Created<T>>,
  ): Promise<T> {
    const header = request.headers['idempotency-key'];
    if (header === undefined) {
      const result = await create(this.db);
      reply.code(result.status);
      return result.body;
    }
    const key = Array.isArray(header) ? header[0]! : header;
    if (key.length < 1 || key.length > 255)
      throw new BadRequest('header Idempotency-Key must be 1 to 255 characters');

    const who = request.principal
      ? `${request.principal.kind}:${request.principal.credentialId}`
      : `ip:${request.ip}`;
    const scope = `${who} ${request.method} ${request.url.split('?')[0]}`;
    const requestHash = sha256Hex(JSON.stringify(request.body ?? null));
    const storedKey = this.derive('idempotency-key', scope, key).toString('hex');

    // Checked before anything else: a duplicate of a request still running here is refused at
    // once, not queued behind the first one's transaction (on SQLite it would wait for it).
    const slot = `${scope}\n${storedKey}`;
    if (this.inFlight.has(slot))
      throw new Conflict('a request with this Idempotency-Key is still in progress');
    this.inFlight.add(slot);
    try {
      const stored = await this.lookup(scope, key, storedKey, requestHash);
      if (stored) return this.replay<T>(reply, stored);
      const result = await transaction(this.db, async (trx) => {
        if (this.engine === 'postgres') {
          const { rows } = await sql<{
            ok: boolean;
          }>`select pg_try_advisory_xact_lock(hashtext(${slot})) as ok`.execute(trx);
          if (!rows[0]?.ok) throw new Conflict('a request with this Idempotency-Key is still in progress');
        }
        const created = await create(trx);
        await trx
          .insertInto('idempotency_keys')
          .values({
            scope,
            key: storedKey,
            request_hash: requestHash,
            status_code: created.status,
            response_body: this.seal(scope, key, JSON.stringify(created.body)),
            created_at: now(),
          })
          .execute();
        return created;
      });
      reply.code(result.status);
      return result.body;
    } catch (err) {
      // Another process finished the same key between our lookup and our insert: answer as a retry would.
      if (isUniqueViolation(err)) {
        const stored = await this.lookup(scope, key, storedKey, requestHash);
        if (stored) return this.replay<T>(reply, stored);
      }
      throw err;
    } finally {
      this.inFlight.delete(slot);
    }
  }

  /**
   * The stored answer of this key, if there is one still kept. Why it hands back data and never
   * the sent reply: a Fastify reply is a thenable, and an async function returning it resolves
   * to what the reply resolves to (undefined), which read as "no stored answer".
   */
  private async lookup(
    scope: string,
    key: string,
    storedKey: string,
    requestHash: string,
  ): Promise<{ status: number; body: string } | undefined> {
    const row = await this.db
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'status_code', 'response_body', 'created_at'])
      .where('scope', '=', scope)
      .where('key', '=', storedKey)
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.created_at < now() - IDEMPOTENCY_RETENTION_MS) {
      await this.db
        .deleteFrom('idempotency_keys')
        .where('scope', '=', scope)
        .where('key', '=', storedKey)
        .execute();
      return undefined;
    }
    if (row.request_hash !== requestHash)
      throw new Conflict('this Idempotency-Key was already used with a different request body');
    return { status: row.status_code, body: this.open(scope, key, row.response_body) };
  }

  /** Answers with a stored answer: its status and body, serialised by the route's schema as the first was. */
  private replay<T>(reply: FastifyReply, stored: { status: number; body: string }): T {
    reply.code(stored.status).header('idempotent-replayed', 'true');
    return JSON.parse(stored.body) as T;
  }

  /** Deletes answers older than the retention period. */
  async sweep(): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', now() - IDEMPOTENCY_RETENTION_MS)
      .execute();
  }
}

import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.js';
import type { RequestReads } from '../../db/request-reads.js';
import type { ApiKeysTable, Db, Trx } from '../../db/types.js';
import { NotFound } from '../../http/errors.js';
import { decodeCursor } from '../../http/pagination.js';
import type { Principal } from '../../http/principal.js';
import { newId } from '../../lib/ids.js';
import { hmacHex, randomBase62 } from '../../lib/secrets.js';
import { isoOrNull, iso, now, touchDue } from '../../lib/time.js';
import { requireRole, type ProjectsService } from '../projects/service.js';
import type { KeyKind, KeysStore } from './store.js';

const PREFIX: Record<KeyKind, string> = { api_key: 'sk_live_', restricted_key: 'rk_live_' };
/**
 * Resolved keys are remembered this long in the process. Deleting a key evicts it at once here
 * and, through the revocation broadcast, in every other process; the TTL only bounds what a lost
 * broadcast could leave behind.
 */
const CACHE_TTL_MS = 5_000;
/** Keys remembered at most; past it, the one unused longest is forgotten (a key in use stays). */
const CACHE_MAX = 10_000;

/** Tells every server process that a key was deleted (Redis pub/sub when several share storage). */
export interface Revocations {
  publish(keyId: string): void;
  subscribe(handler: (keyId: string) => void): void;
}

/** The public shape of a key: never its secret. */
export function presentKey(k: ApiKeysTable) {
  return {
    id: k.id,
    project_id: k.project_id,
    label: k.label,
    prefix: k.prefix,
    created_at: iso(k.created_at),
    last_used_at: isoOrNull(k.last_used_at),
  };
}

/** API keys and restricted keys: issue (secret shown once), list, relabel, delete, resolve. */
export function keysService(deps: {
  config: Config;
  store: KeysStore;
  projects: ProjectsService;
  reads: RequestReads;
  revocations: Revocations;
}) {
  const { store, projects } = deps;
  const secretOf = new Map<string, string>();
  // The expiry is checked against the app's clock (lib/time), which tests move; lru-cache bounds
  // the size, forgetting the key unused longest rather than all of them at once.
  const cache = new LRUCache<string, { principal: Principal; expires: number; touched: number }>({
    max: CACHE_MAX,
    dispose: (entry, secret) => {
      if (secretOf.get(entry.principal.credentialId) === secret)
        secretOf.delete(entry.principal.credentialId);
    },
  });
  const evict = (keyId: string) => {
    const secret = secretOf.get(keyId);
    if (secret !== undefined) cache.delete(secret);
    secretOf.delete(keyId);
  };
  deps.revocations.subscribe(evict);
  const pepper = deps.config.keys.apiKeyPepper;
  const notFound = (kind: KeyKind) =>
    new NotFound(kind === 'api_key' ? 'API key not found' : 'restricted key not found');

  return {
    /** Issues a key for a project of the caller's organisation; the raw secret is returned this once. */
    async create(q: Db | Trx, principal: Principal, kind: KeyKind, projectId: string, label: string | null) {
      requireRole(principal, 'admin');
      const project = await projects.inOrg(principal, projectId, { q });
      const secret = PREFIX[kind] + randomBase62(32);
      const row: ApiKeysTable = {
        id: newId(),
        org_id: project.org_id,
        project_id: project.id,
        kind,
        label,
        prefix: secret.slice(0, 12),
        secret_hash: hmacHex(pepper, secret),
        created_at: now(),
        last_used_at: null,
      };
      await store.insert(q, row);
      return { ...presentKey(row), secret };
    },

    async list(
      principal: Principal,
      kind: KeyKind,
      projectId: string | undefined,
      limit: number,
      cursor: string | undefined,
    ) {
      requireRole(principal, 'admin');
      return store.list(principal.orgId, kind, projectId, limit + 1, decodeCursor(cursor));
    },

    async relabel(principal: Principal, kind: KeyKind, id: string, label: string | null) {
      requireRole(principal, 'admin');
      const key = await store.byId(principal.orgId, kind, id);
      if (!key) throw notFound(kind);
      await store.setLabel(principal.orgId, kind, id, label);
      return presentKey({ ...key, label });
    },

    /** Deletes a key; it stops working with the next request, in every process. */
    async delete(principal: Principal, kind: KeyKind, id: string) {
      requireRole(principal, 'admin');
      if (!(await store.delete(principal.orgId, kind, id))) throw notFound(kind);
      evict(id);
      deps.revocations.publish(id);
      return { id, deleted: true as const };
    },

    /**
     * The principal of a presented secret, or null (cached briefly; deletion evicts it everywhere).
     * A cached key answers synchronously: the edge then admits the request without a promise.
     */
    resolve(secret: string): Principal | null | Promise<Principal | null> {
      if (secret.length > 100) return null;
      const t = now();
      const hit = cache.get(secret);
      if (hit && hit.expires > t) {
        if (touchDue(hit.touched, t)) {
          hit.touched = t;
          store.touch(hit.principal.credentialId, t).catch(() => {});
        }
        return hit.principal;
      }
      return lookup(secret, t);
    },
  };

  /** A key not in the cache: read, checked, cached. */
  async function lookup(secret: string, t: number): Promise<Principal | null> {
    const key = await deps.reads.keyByHash(hmacHex(pepper, secret));
    const kind: KeyKind = secret.startsWith(PREFIX.restricted_key) ? 'restricted_key' : 'api_key';
    if (!key || key.kind !== kind) return null;
    let touched = key.last_used_at ?? 0;
    if (touchDue(key.last_used_at, t)) {
      // Not awaited: recording the use must not delay or fail the request it belongs to.
      touched = t;
      store.touch(key.id, t).catch(() => {});
    }
    const principal: Principal = {
      kind,
      credentialId: key.id,
      orgId: key.org_id,
      userId: null,
      keyProjectId: key.project_id,
      role: 'admin',
      projectHint: null,
    };
    cache.set(secret, { principal, expires: t + CACHE_TTL_MS, touched });
    secretOf.set(key.id, secret);
    return principal;
  }
}
export type KeysService = ReturnType<typeof keysService>;

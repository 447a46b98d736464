import type { Config } from '../../config.js';
import type { ApiKeysTable, Db, Trx } from '../../db/types.js';
import { NotFound } from '../../http/errors.js';
import { decodeCursor } from '../../http/pagination.js';
import type { Principal } from '../../http/principal.js';
import { newId } from '../../lib/ids.js';
import { hmacHex, randomBase62 } from '../../lib/secrets.js';
import { isoOrNull, iso, now } from '../../lib/time.js';
import { requireRole, type ProjectsService } from '../projects/service.js';
import type { KeyKind, KeysStore } from './store.js';

const PREFIX: Record<KeyKind, string> = { api_key: 'sk_live_', restricted_key: 'rk_live_' };
/** last_used_at is written at most this often per key, so that authenticating stays a read. */
const TOUCH_INTERVAL_MS = 60_000;

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
export function keysService(deps: { config: Config; store: KeysStore; projects: ProjectsService }) {
  const { store, projects } = deps;
  const pepper = deps.config.keys.apiKeyPepper;
  const notFound = (kind: KeyKind) =>
    new NotFound(kind === 'api_key' ? 'API key not found' : 'restricted key not found');

  return {
    /** Issues a key for a project of the caller's organisation; the raw secret is returned this once. */
    async create(q: Db | Trx, principal: Principal, kind: KeyKind, projectId: string, label: string | null) {
      requireRole(principal, 'admin');
      const project = await projects.inOrg(principal, projectId, q);
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
      return { id, deleted: true as const };
    },

    /** The principal of a presented secret, or null. Looked up on every request: deletion is immediate. */
    async resolve(secret: string): Promise<Principal | null> {
      if (secret.length > 100) return null;
      const key = await store.bySecretHash(hmacHex(pepper, secret));
      const kind: KeyKind = secret.startsWith(PREFIX.restricted_key) ? 'restricted_key' : 'api_key';
      if (!key || key.kind !== kind) return null;
      const t = now();
      if (key.last_used_at === null || key.last_used_at < t - TOUCH_INTERVAL_MS) {
        // Not awaited: recording the use must not delay or fail the request it belongs to.
        store.touch(key.id, t).catch(() => {});
      }
      return {
        kind,
        credentialId: key.id,
        orgId: key.org_id,
        userId: null,
        keyProjectId: key.project_id,
        role: 'admin',
        projectHint: null,
      };
    },
  };
}
export type KeysService = ReturnType<typeof keysService>;

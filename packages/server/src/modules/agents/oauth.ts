import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.js';
import { transaction } from '../../db/transaction.js';
import type { Db, OAuthGrantsTable } from '../../db/types.js';
import { NotFound } from '../../http/errors.js';
import { decodeCursor } from '../../http/pagination.js';
import type { Principal } from '../../http/principal.js';
import { newId } from '../../lib/ids.js';
import { seal, unseal } from '../../lib/seal.js';
import { hmacHex, randomToken } from '../../lib/secrets.js';
import { DAY_MS, MINUTE_MS, now, touchDue } from '../../lib/time.js';
import type { ProjectsService } from '../projects/service.js';
import { fetchClientMetadata, isMetadataUrl } from './client-metadata.js';
import type { OAuthStore } from './oauth-store.js';
import { agentPrincipal, SCOPES } from './service.js';
import {
  AuthorizePageError,
  AuthorizeRedirectError,
  OAuthError,
  authorizationServerMetadata,
  parseScopes,
  redirectUriProblem,
} from './oauth-rules.js';

/** Access tokens live this long; a client refreshes them with its (rotating) refresh token. */
export const ACCESS_TTL_S = 900;
const CODE_TTL_MS = MINUTE_MS;
const CONSENT_TTL_MS = 10 * MINUTE_MS;
const DOCUMENT_TTL_MS = 5 * MINUTE_MS;
/** A refresh token presented again this soon after its exchange is refused without revoking the grant. */
const REFRESH_RETRY_GRACE_MS = 2_000;

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** Consent, as sealed into the page's form: what was asked, for whom, until when. */
interface Consent {
  client_id: string;
  redirect_uri: string;
  scopes: string[];
  code_challenge: string;
  state?: string;
  user_id: string;
  exp: number;
}

/**
 * OAuth 2.1 for MCP clients: dynamic client registration (RFC 7591), authorization code with PKCE
 * (S256 only), a consent step for the signed-in user, short-lived access tokens and rotating
 * refresh tokens (a refresh token used twice revokes its grant), revocation (RFC 7009), and the
 * grants a user can list and revoke. Access tokens (`oat_…`) are accepted by /mcp only.
 */
export function oauthService(deps: { config: Config; db: Db; store: OAuthStore; projects: ProjectsService }) {
  const { store, config } = deps;
  const pepper = config.keys.apiKeyPepper;
  const sealKey = createHmac('sha256', config.keys.tokens).update('oauth-consent').digest();
  const hash = (secret: string) => hmacHex(pepper, secret);
  /** When each client metadata document was last fetched: fetched again after DOCUMENT_TTL_MS. */
  const documents = new Map<string, number>();

  /**
   * A client: registered here, or known by its metadata document (client_id an https address),
   * fetched at first use and again every few minutes, the fetch dropped when `signal` (the
   * caller's) aborts. Throws with the reason a document is refused: MetadataUnavailable when it
   * could not be had, whose message alone may be shown to the caller.
   */
  async function findClient(id: string, signal: AbortSignal | undefined) {
    if (!isMetadataUrl(id)) return store.client(id);
    const fetched = documents.get(id);
    if (fetched === undefined || now() - fetched > DOCUMENT_TTL_MS) {
      const meta = await fetchClientMetadata(id, {
        allowPrivate: config.oauthAllowPrivateClientUrls,
        timeoutMs: config.oauthClientMetadataTimeoutMs,
        signal,
      });
      await store.upsertClient({
        id,
        secret_hash: null,
        name: meta.name,
        redirect_uris: JSON.stringify(meta.redirectUris),
        created_at: now(),
      });
      if (documents.size >= 1000) documents.clear();
      documents.set(id, now());
    }
    return store.client(id);
  }

  function issue() {
    const access = `oat_${randomToken(32)}`;
    const refresh = `ort_${randomToken(32)}`;
    return {
      access,
      refresh,
      row: {
        access_hash: hash(access),
        access_expires_at: now() + ACCESS_TTL_S * 1000,
        refresh_hash: hash(refresh),
      },
    };
  }
  const answer = (t: ReturnType<typeof issue>, scopes: string) => ({
    access_token: t.access,
    token_type: 'Bearer',
    expires_in: ACCESS_TTL_S,
    refresh_token: t.refresh,
    scope: scopes,
  });

  async function clientFor(form: Record<string, unknown>, signal: AbortSignal | undefined) {
    const id = typeof form.client_id === 'string' ? form.client_id : '';
    const client = id
      ? await findClient(id, signal).catch((err: Error) => {
          throw new OAuthError(401, 'invalid_client', `this client cannot be used: ${err.message}`, {
            cause: err,
          });
        })
      : undefined;
    if (!client) throw new OAuthError(401, 'invalid_client', 'unknown client_id');
    if (client.secret_hash !== null) {
      const given = typeof form.client_secret === 'string' ? hash(form.client_secret) : '';
      if (
        given.length !== client.secret_hash.length ||
        !timingSafeEqual(Buffer.from(given), Buffer.from(client.secret_hash))
      )
        throw new OAuthError(401, 'invalid_client', 'client_secret is missing or wrong');
    }
    return client;
  }

  return {
    metadata: () => authorizationServerMetadata(config.publicBaseUrl),

    /** RFC 7591. Public clients (`none`, the default) get no secret; `client_secret_post` gets one, once. */
    async register(body: Record<string, unknown>) {
      const uris = body.redirect_uris;
      if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10)
        throw new OAuthError(
          400,
          'invalid_redirect_uri',
          'redirect_uris must be an array of 1 to 10 addresses',
        );
      for (const u of uris) {
        const problem = redirectUriProblem(u);
        if (problem)
          throw new OAuthError(400, 'invalid_redirect_uri', `redirect_uris: ${String(u)} ${problem}`);
      }
      const method = body.token_endpoint_auth_method ?? 'none';
      if (method !== 'none' && method !== 'client_secret_post')
        throw new OAuthError(
          400,
          'invalid_client_metadata',
          'token_endpoint_auth_method must be none or client_secret_post',
        );
      const grants = (body.grant_types as unknown) ?? ['authorization_code', 'refresh_token'];
      if (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token'))
        throw new OAuthError(
          400,
          'invalid_client_metadata',
          'grant_types may hold authorization_code and refresh_token only',
        );
      const name = body.client_name;
      if (name !== undefined && (typeof name !== 'string' || name.length > 200))
        throw new OAuthError(
          400,
          'invalid_client_metadata',
          'client_name must be a string of at most 200 characters',
        );
      const id = newId();
      const secret = method === 'client_secret_post' ? `ocs_${randomToken(32)}` : null;
      const at = now();
      await store.insertClient({
        id,
        secret_hash: secret ? hash(secret) : null,
        name: (name as string | undefined) ?? null,
        redirect_uris: JSON.stringify(uris),
        created_at: at,
      });
      return {
        client_id: id,
        client_id_issued_at: Math.floor(at / 1000),
        ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
        client_name: name ?? undefined,
        redirect_uris: uris,
        grant_types: grants,
        response_types: ['code'],
        token_endpoint_auth_method: method,
      };
    },

    /** Checks an authorization request; what the consent page shows and seals. */
    async authorizeRequest(q: Record<string, unknown>, user: Principal | null, signal?: AbortSignal) {
      const client =
        typeof q.client_id === 'string'
          ? await findClient(q.client_id, signal).catch((err: Error) => {
              throw new AuthorizePageError(
                `the application's client metadata document cannot be used: ${err.message}`,
                { cause: err },
              );
            })
          : undefined;
      if (!client) throw new AuthorizePageError('unknown client_id: the application is not registered here');
      const registered = JSON.parse(client.redirect_uris) as string[];
      const redirect =
        typeof q.redirect_uri === 'string' ? q.redirect_uri : registered.length === 1 ? registered[0]! : '';
      if (!registered.includes(redirect))
        throw new AuthorizePageError('redirect_uri is not one the application registered');
      const state = typeof q.state === 'string' ? q.state : undefined;
      const fail = (error: string, description: string) =>
        new AuthorizeRedirectError(redirect, error, description, state);
      if (q.response_type !== 'code') throw fail('unsupported_response_type', 'response_type must be code');
      if (typeof q.code_challenge !== 'string' || !/^[A-Za-z0-9_-]{43,128}$/.test(q.code_challenge))
        throw fail('invalid_request', 'code_challenge is required (PKCE)');
      if (q.code_challenge_method !== 'S256')
        throw fail('invalid_request', 'code_challenge_method must be S256 (plain is refused)');
      const scopes = parseScopes(q.scope);
      if (!scopes) throw fail('invalid_scope', `scope may hold ${SCOPES.join(' and ')}`);
      if (!user) return { client, scopes, sealed: null, redirect };
      const consent: Consent = {
        client_id: client.id,
        redirect_uri: redirect,
        scopes,
        code_challenge: q.code_challenge,
        state,
        user_id: user.userId!,
        exp: now() + CONSENT_TTL_MS,
      };
      return { client, scopes, sealed: seal(sealKey, JSON.stringify(consent)), redirect };
    },

    /** The user's answer on the consent page: where to send the browser next. */
    async decide(
      user: Principal,
      sealed: string,
      allow: boolean,
      projectId: string | undefined,
    ): Promise<string> {
      let consent: Consent;
      try {
        consent = JSON.parse(unseal(sealKey, sealed)) as Consent;
      } catch {
        throw new AuthorizePageError(
          'the consent form was altered or is not ours; start again from the application',
        );
      }
      if (consent.user_id !== user.userId || consent.exp < now())
        throw new AuthorizePageError('the consent form has expired or belongs to another user; start again');
      const to = new URL(consent.redirect_uri);
      if (consent.state !== undefined) to.searchParams.set('state', consent.state);
      to.searchParams.set('iss', config.publicBaseUrl);
      if (!allow) {
        to.searchParams.set('error', 'access_denied');
        return to.toString();
      }
      // The project the user picked on the page (any of their organisation's), else the first.
      const project = await deps.projects.scope(user, { projectId: projectId || undefined });
      const code = randomToken(32);
      await store.insertCode({
        code_hash: hash(code),
        client_id: consent.client_id,
        org_id: user.orgId,
        project_id: project.id,
        user_id: user.userId!,
        scopes: consent.scopes.join(' '),
        code_challenge: consent.code_challenge,
        redirect_uri: consent.redirect_uri,
        expires_at: now() + CODE_TTL_MS,
      });
      to.searchParams.set('code', code);
      return to.toString();
    },

    /** The token endpoint: an authorization code (with its PKCE verifier) or a refresh token. */
    async token(form: Record<string, unknown>, signal?: AbortSignal) {
      const client = await clientFor(form, signal);
      if (form.grant_type === 'authorization_code') {
        const code = typeof form.code === 'string' ? form.code : '';
        const verifier = typeof form.code_verifier === 'string' ? form.code_verifier : '';
        // The code is spent by any attempt, a failed one too (a wrong verifier cannot be retried).
        const outcome = await transaction(deps.db, async (trx) => {
          const row = await store.takeCode(trx, hash(code));
          // Exchanged before: whoever holds it may not be the client, so that exchange's tokens go.
          if (!row && (await store.revokeSpentCode(trx, hash(code), now())))
            return new OAuthError(400, 'invalid_grant', 'the code was already used: its tokens are revoked');
          if (!row || row.client_id !== client.id || row.expires_at < now())
            return new OAuthError(
              400,
              'invalid_grant',
              'the code is unknown, used, expired or for another client',
            );
          if (form.redirect_uri !== undefined && form.redirect_uri !== row.redirect_uri)
            return new OAuthError(
              400,
              'invalid_grant',
              'redirect_uri differs from the authorization request',
            );
          if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || s256(verifier) !== row.code_challenge)
            return new OAuthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge');
          const t = issue();
          const grant: OAuthGrantsTable = {
            id: newId(),
            org_id: row.org_id,
            project_id: row.project_id,
            user_id: row.user_id,
            client_id: client.id,
            scopes: row.scopes,
            ...t.row,
            created_at: now(),
            last_used_at: null,
            revoked_at: null,
          };
          await store.insertGrant(trx, grant);
          await store.spendCode(trx, hash(code), grant.id, now());
          return answer(t, row.scopes);
        });
        if (outcome instanceof OAuthError) throw outcome;
        return outcome;
      }
      if (form.grant_type === 'refresh_token') {
        const presented = hash(typeof form.refresh_token === 'string' ? form.refresh_token : '');
        const outcome = await transaction(deps.db, async (trx) => {
          const grant = await store.grantByRefresh(trx, presented);
          if (grant && grant.client_id === client.id && grant.revoked_at === null) {
            const t = issue();
            if (await store.rotate(trx, grant.id, presented, t.row, now())) return answer(t, grant.scopes);
          }
          // A refresh token used again: someone else may hold it, and the whole grant goes. Within
          // a few seconds of its exchange it is more likely the client's own retry (or two of its
          // requests racing): refused, but the tokens the first exchange gave stay good.
          const spent = await store.spent(trx, presented);
          if (!spent) return 'unknown';
          if (now() - spent.created_at < REFRESH_RETRY_GRACE_MS) return 'raced';
          await store.revoke(trx, spent.grant_id, now());
          return 'reused';
        });
        if (outcome === 'reused')
          throw new OAuthError(
            400,
            'invalid_grant',
            'the refresh token was already used: the grant is revoked',
          );
        if (outcome === 'raced')
          throw new OAuthError(
            400,
            'invalid_grant',
            'the refresh token was exchanged a moment ago: use the tokens that exchange returned',
          );
        if (outcome === 'unknown')
          throw new OAuthError(400, 'invalid_grant', 'the refresh token is unknown or revoked');
        return outcome;
      }
      throw new OAuthError(
        400,
        'unsupported_grant_type',
        'grant_type must be authorization_code or refresh_token',
      );
    },

    /** RFC 7009: revokes the grant of an access or refresh token; unknown tokens are not an error. */
    async revoke(form: Record<string, unknown>, signal?: AbortSignal): Promise<void> {
      const client = await clientFor(form, signal);
      const token = typeof form.token === 'string' ? form.token : '';
      const h = hash(token);
      const grant =
        (await store.grantByAccess(h)) ?? (await transaction(deps.db, (trx) => store.grantByRefresh(trx, h)));
      if (grant && grant.client_id === client.id) await store.revoke(deps.db, grant.id, now());
    },

    /** The principal of an OAuth access token; null when unknown, expired or its grant revoked. */
    async resolveAccess(secret: string): Promise<Principal | null> {
      const g = await store.grantByAccess(hash(secret));
      const at = now();
      if (!g || g.revoked_at !== null || g.access_expires_at <= at) return null;
      if (touchDue(g.last_used_at, at)) void store.touch(g.id, at).catch(() => {});
      return agentPrincipal(`oauth:${g.id}`, g);
    },

    /** Forgets expired codes, and spent codes and refresh tokens after 30 days. */
    sweep: () => store.sweep(now(), now() - 30 * DAY_MS),

    /** The grants the signed-in user made and has not revoked, newest first. */
    async grants(user: Principal, limit: number, cursor: string | undefined) {
      const rows = await store.grants(user.userId!, decodeCursor(cursor), limit + 1);
      const names = await store.clientNames([...new Set(rows.map((r) => r.client_id))]);
      return rows.map((g) => ({ ...g, client_name: names.get(g.client_id) ?? null }));
    },

    async revokeGrant(user: Principal, id: string) {
      if (!(await store.revoke(deps.db, id, now(), user.userId!))) throw new NotFound('grant not found');
      return { id, deleted: true as const };
    },
  };
}
export type OAuthService = ReturnType<typeof oauthService>;

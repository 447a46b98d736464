import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { ok } from '../../http/envelope.js';
import { emptyDoc, htmlDoc, jsonDoc, okResponse } from '../../http/openapi-docs.js';
import { PageQuery, paginate } from '../../http/pagination.js';
import { USER_ONLY, type RouteAuth } from '../../http/principal.js';
import { Deleted } from '../../http/shared-schemas.js';
import type { ProjectsService } from '../projects/service.js';
import type { OAuthService } from './oauth.js';
import { MetadataUnavailable } from './client-metadata.js';
import { AuthorizePageError, AuthorizeRedirectError, OAuthError, presentGrant } from './oauth-rules.js';
import {
  AuthorizationServerMetadata,
  AuthorizeQuery,
  ClientRegistration,
  ConsentForm,
  OAuthErrorBody,
  OAuthGrant,
  RegisteredClient,
  RevokeRequest,
  TokenRequest,
  Tokens,
} from './schemas.js';

export interface OAuthRoutesOptions {
  baseUrl: string;
  oauth: OAuthService;
  projects: ProjectsService;
}

const tags = ['Agent access'];
/** The consent page: reached with the login cookie when there is one, and without. */
const PAGE: RouteAuth = { accept: ['user'], anonymous: true, form: true };

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const SCOPE_TEXT: Record<string, string> = {
  'mcp:read': 'read your sessions, their manifests, timelines and chat, exports, usage and limits',
  'mcp:write':
    'create sessions and connection tokens, change visibility, create replay links, start exports and redact participants',
};

/**
 * The dashboard's look (packages/web/src/styles.css: colours, light and dark, fonts, card and
 * buttons), repeated here because this page is rendered by the server and may load nothing: its
 * policy allows inline styles and nothing else.
 */
const STYLE = [
  ":root{--bg:#f7f7fb;--panel:#fff;--text:#1b1b24;--muted:#5d5d70;--line:#dedee8;--accent:#4f46e5;--accent-text:#fff;--radius:8px;font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--text);background:var(--bg)}",
  '@media (prefers-color-scheme:dark){:root{--bg:#121218;--panel:#1c1c25;--text:#ececf3;--muted:#a3a3b8;--line:#33334a;--accent:#8b85ff;--accent-text:#0d0d14}}',
  '*{box-sizing:border-box}body{margin:0}main{max-width:34rem;margin:4rem auto;padding:0 1rem}a{color:var(--accent)}',
  '.brand{display:flex;align-items:center;gap:.4rem;font-weight:700;font-size:1.1rem;margin-bottom:1rem}',
  'h1{font-size:1.5rem;margin:0 0 .75rem}ul{padding-left:1.2rem}.muted{color:var(--muted)}',
  '.card{background:var(--panel);border:1px solid var(--line);border-radius:var(--radius);padding:1rem 1.25rem}',
  'label{display:block;font-weight:600;margin-bottom:.25rem}select{font:inherit;color:var(--text);background:var(--panel);border:1px solid var(--line);border-radius:var(--radius);padding:.4rem .6rem;min-height:2.25rem;width:100%}',
  '.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0 0}',
  'button,.button{font:inherit;cursor:pointer;border:1px solid var(--accent);background:var(--accent);color:var(--accent-text);border-radius:var(--radius);padding:.45rem .9rem;min-height:2.25rem;text-decoration:none;display:inline-flex;align-items:center}',
  'button.secondary,.button.secondary{background:transparent;color:var(--text);border-color:var(--line)}:focus-visible{outline:3px solid var(--accent);outline-offset:2px}',
].join('');

/** The dashboard's logo, inline: the page's policy loads no image. */
const LOGO =
  '<svg aria-hidden="true" width="28" height="28" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#4f46e5"/><path d="M9 11h9a2 2 0 0 1 2 2v6a2 2 0 0 1-2 2H9a2 2 0 0 1-2-2v-6a2 2 0 0 1 2-2zm12 4 5-3v8l-5-3z" fill="#fff"/></svg>';

/**
 * A server-rendered page: no scripts, not framable. `formTarget` is where the form's answer will
 * redirect (browsers apply form-action to that redirect too); none: the form may only post here.
 */
function page(reply: FastifyReply, status: number, title: string, body: string, formTarget?: string) {
  reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header(
      'content-security-policy',
      `default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'${formTarget ? ` ${formTarget}` : ''}`,
    )
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)} · vss</title><style>${STYLE}</style></head><body><main><div class="brand">${LOGO} vss</div><div class="card"><h1>${esc(title)}</h1>${body}</div></main></body></html>`,
    );
  return reply;
}

/** OAuth's own error answer (RFC 6749): not the envelope. */
const oauthErrorDoc = (description: string) => jsonDoc(description, OAuthErrorBody);
/** The forms OAuth clients post; JSON is taken too. */
const FORM = ['application/x-www-form-urlencoded', 'application/json'];

/** The `?…` part of a request URL, or nothing. */
const querystring = (url: string) => (url.includes('?') ? url.slice(url.indexOf('?')) : '');

/** Links to sign in (or sign up) that bring the person back to `back`, a path on this server. */
function signInLinks(back: string): string {
  const next = encodeURIComponent(back);
  return `<p class="actions"><a class="button" href="/login?next=${esc(next)}">Sign in</a><a class="button secondary" href="/signup?next=${esc(next)}">Create an account</a></p>`;
}

/** Aborted when the caller goes away before its answer is sent: work done for it can stop. */
function callerSignal(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  return gone.signal;
}

/** What the caller is not told of a refused client metadata document goes to the log. */
function logRefusedDocument(reply: FastifyReply, err: Error) {
  if (err.cause instanceof MetadataUnavailable)
    reply.log.warn({ detail: err.cause.detail }, 'a client metadata document could not be fetched');
}

function oauthFailure(reply: FastifyReply, err: unknown) {
  if (!(err instanceof OAuthError)) throw err;
  logRefusedDocument(reply, err);
  return reply
    .code(err.status)
    .header('cache-control', 'no-store')
    .send({ error: err.error, error_description: err.message });
}

/** OAuth 2.1 for MCP clients: metadata, registration, authorization with consent, tokens, revocation, grants. */
export const oauthRoutes: FastifyPluginAsyncTypebox<OAuthRoutesOptions> = async (app, deps) => {
  const { oauth } = deps;
  await app.register(formbody);

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        operationId: 'getOAuthServerMetadata',
        summary: 'OAuth authorization server metadata (RFC 8414)',
        docs: {
          responses: {
            200: jsonDoc('The metadata (RFC 8414, not the envelope).', AuthorizationServerMetadata),
          },
        },
      },
    },
    async () => oauth.metadata(),
  );

  app.post(
    '/oauth/register',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        operationId: 'registerOAuthClient',
        summary: 'Register an OAuth client (RFC 7591)',
        description:
          'Dynamic client registration. `redirect_uris` (https, http on a loopback address, or a private-use scheme) are matched exactly at authorization. `token_endpoint_auth_method` `none` (public clients, the default) or `client_secret_post` (a secret, shown once). Errors in OAuth form: 400 `invalid_redirect_uri` or `invalid_client_metadata`.',
        docs: {
          body: ClientRegistration,
          consumes: ['application/json'],
          responses: {
            201: jsonDoc('The registered client (RFC 7591, not the envelope).', RegisteredClient),
            400: oauthErrorDoc('`invalid_redirect_uri` or `invalid_client_metadata`, in OAuth form.'),
          },
        },
      },
    },
    async (request, reply) => {
      try {
        reply.code(201).header('cache-control', 'no-store');
        return await oauth.register((request.body ?? {}) as Record<string, unknown>);
      } catch (err) {
        return oauthFailure(reply, err);
      }
    },
  );

  app.get(
    '/oauth/authorize',
    {
      config: { auth: PAGE },
      schema: {
        tags,
        operationId: 'authorizeOAuthClient',
        summary: 'Authorize an OAuth client (consent page)',
        description:
          'Authorization code with PKCE (`code_challenge_method=S256` required; `plain` refused). Shows the signed-in user what the application asks for, where it will be sent back and for which project; their answer redirects to the registered `redirect_uri` with `code` (valid 60 s, once) or `error=access_denied`, and `state` and `iss`. A request that cannot be authorized (unknown client or redirect address, missing PKCE, bad scope) is explained on the page, never redirected: clients register their own addresses, and redirecting errors there would make this an open redirector. A client known by its metadata document (an https `client_id`) has it fetched in at most `OAUTH_CLIENT_METADATA_TIMEOUT_MS` (default 5 s) all told, dropped if the caller goes away; when it cannot be had the page says only that, never what the host resolved to or why the connection failed (that goes to the server log).',
        docs: {
          querystring: AuthorizeQuery,
          responses: {
            200: htmlDoc('The consent page, or, without a login cookie, a page asking to sign in first.'),
            400: htmlDoc('A page explaining why the request cannot be authorized.'),
          },
        },
      },
    },
    async (request, reply) => {
      try {
        const { client, scopes, sealed, redirect } = await oauth.authorizeRequest(
          request.query as Record<string, unknown>,
          request.principal,
          callerSignal(reply),
        );
        const name = esc(client.name ?? 'An application');
        if (!sealed || !request.principal)
          return page(
            reply,
            200,
            'Sign in to continue',
            // After signing in, the dashboard sends the person straight back to this page with
            // the same request (only its query is taken from the URL: the path is fixed here).
            `<p>${name} asks to use vss on your behalf. Sign in to vss to continue: you will come back to this page.</p>${signInLinks(`/oauth/authorize${querystring(request.url)}`)}`,
          );
        const target = new URL(redirect);
        const where =
          target.protocol === 'http:' || target.protocol === 'https:' ? target.origin : target.protocol;
        const projects = (await deps.projects.list(request.principal, 200)).slice(0, 200);
        const options = projects.map((p) => `<option value="${esc(p.id)}">${esc(p.name)}</option>`).join('');
        const items = scopes
          .map((s) => `<li><strong>${esc(s)}</strong>: ${esc(SCOPE_TEXT[s] ?? s)}</li>`)
          .join('');
        return page(
          reply,
          200,
          'Allow an application to act for you?',
          `<p>An application calling itself <strong>${name}</strong> (a name it chose itself: vss has not verified it) asks to act for you until you revoke it, and will be sent back to <strong>${esc(where)}</strong>. Allow it only if you started this from that application.</p><p>It may:</p><ul>${items}</ul><p class="muted">Every call it makes is recorded in the agent activity log; you can revoke it on the Agents page of the dashboard.</p><form method="post" action="/oauth/authorize"><input type="hidden" name="consent" value="${esc(sealed)}"><label for="project">Project it may act on</label><select id="project" name="project_id">${options}</select><p class="actions"><button type="submit" name="decision" value="allow">Allow</button><button type="submit" class="secondary" name="decision" value="deny">Deny</button></p></form>`,
          where,
        );
      } catch (err) {
        // Never redirected: clients register their own addresses, so an error sent there would
        // make this server an open redirector. The person sees what went wrong instead.
        if (err instanceof AuthorizePageError) logRefusedDocument(reply, err);
        if (err instanceof AuthorizePageError || err instanceof AuthorizeRedirectError)
          return page(reply, 400, 'This request cannot be authorized', `<p>${esc(err.message)}</p>`);
        throw err;
      }
    },
  );

  app.post(
    '/oauth/authorize',
    {
      config: { auth: PAGE },
      schema: {
        tags,
        operationId: 'answerOAuthConsent',
        summary: 'Answer the consent page',
        description: 'The consent form posts here (same origin only).',
        docs: {
          body: ConsentForm,
          consumes: ['application/x-www-form-urlencoded'],
          responses: {
            302: emptyDoc(
              'Back to the client: its `redirect_uri` with `code` (or `error=access_denied`), `state` and `iss`.',
              { Location: Type.String({ description: 'the redirect address' }) },
            ),
            400: htmlDoc('A page explaining why the answer cannot be used (altered or expired form).'),
            401: htmlDoc('A page asking to sign in again: the login session has ended.'),
          },
        },
      },
    },
    async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, unknown>;
      if (!request.principal)
        return page(
          reply,
          401,
          'Sign in to continue',
          `<p>Your sign-in has ended. Sign in, then start again from the application.</p><p class="actions"><a class="button" href="/login">Sign in</a></p>`,
        );
      try {
        const to = await oauth.decide(
          request.principal,
          String(form.consent ?? ''),
          form.decision === 'allow',
          typeof form.project_id === 'string' ? form.project_id : undefined,
        );
        return reply.redirect(to, 302);
      } catch (err) {
        if (err instanceof AuthorizePageError)
          return page(reply, 400, 'This request cannot be authorized', `<p>${esc(err.message)}</p>`);
        throw err;
      }
    },
  );

  app.post(
    '/oauth/token',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        operationId: 'exchangeOAuthToken',
        summary: 'OAuth token endpoint',
        description: `\`grant_type=authorization_code\` (with \`code_verifier\`) or \`refresh_token\`. Access tokens (\`oat_…\`) last 900 s and are accepted by /mcp only; each refresh returns a new refresh token, and presenting a spent one revokes the whole grant; an authorization code presented again after its exchange is refused and revokes the grant that exchange made (OAuth 2.1 §4.1.2). Errors in OAuth form (\`invalid_grant\`, \`invalid_client\`, \`unsupported_grant_type\`).`,
        docs: {
          body: TokenRequest,
          consumes: FORM,
          responses: {
            200: jsonDoc('New tokens (RFC 6749, not the envelope).', Tokens),
            400: oauthErrorDoc('`invalid_grant` or `unsupported_grant_type`, in OAuth form.'),
            401: oauthErrorDoc(
              '`invalid_client`: unknown client, a missing or wrong secret, or a metadata document that could not be fetched within `OAUTH_CLIENT_METADATA_TIMEOUT_MS` (no further detail is given).',
            ),
          },
        },
      },
    },
    async (request, reply) => {
      try {
        const tokens = await oauth.token(
          (request.body ?? {}) as Record<string, unknown>,
          callerSignal(reply),
        );
        return reply.header('cache-control', 'no-store').send(tokens);
      } catch (err) {
        return oauthFailure(reply, err);
      }
    },
  );

  app.post(
    '/oauth/revoke',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        operationId: 'revokeOAuthToken',
        summary: 'Revoke a token (RFC 7009)',
        description: 'Revokes the grant of the access or refresh token; 200 even for an unknown token.',
        docs: {
          body: RevokeRequest,
          consumes: FORM,
          responses: {
            200: jsonDoc('Done (or nothing to revoke): an empty object.', Type.Object({})),
            401: oauthErrorDoc('`invalid_client`: unknown client, or a missing or wrong secret.'),
          },
        },
      },
    },
    async (request, reply) => {
      try {
        await oauth.revoke((request.body ?? {}) as Record<string, unknown>, callerSignal(reply));
        return reply.code(200).send({});
      } catch (err) {
        return oauthFailure(reply, err);
      }
    },
  );

  app.get(
    '/v1/oauth/grants',
    {
      config: { auth: USER_ONLY },
      schema: {
        tags,
        operationId: 'listOAuthGrants',
        summary: 'OAuth grants',
        description: 'What the signed-in user granted to OAuth clients and has not revoked, newest first.',
        querystring: PageQuery,
        response: { 200: okResponse('A page of grants, newest first.', Type.Array(OAuthGrant)) },
      },
    },
    async (request, reply) => {
      const rows = await oauth.grants(request.principal!, request.query.limit, request.query.cursor);
      return ok(paginate(rows, request.query.limit, request, reply, deps.baseUrl).map(presentGrant));
    },
  );

  app.delete(
    '/v1/oauth/grants/:grantId',
    {
      config: { auth: USER_ONLY },
      schema: {
        tags,
        operationId: 'revokeOAuthGrant',
        summary: 'Revoke an OAuth grant',
        description: 'Its access and refresh tokens are refused from the next call on.',
        params: Type.Object({ grantId: Type.String({ format: 'uuid' }) }),
        response: { 200: okResponse('The grant was revoked.', Deleted) },
      },
    },
    async (request) => ok(await oauth.revokeGrant(request.principal!, request.params.grantId)),
  );
};

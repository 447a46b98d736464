import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { checkSameOrigin } from '../../http/auth.js';
import { clearSessionCookie, readSessionCookie, setSessionCookie } from '../../http/cookies.js';
import { ok } from '../../http/envelope.js';
import { okResponse } from '../../http/openapi-docs.js';
import { USER_ONLY } from '../../http/principal.js';
import type { AccountsService } from './service.js';
import { LOGIN_SESSION_MS } from './service.js';
import { Credentials, LoginCredentials, RegisteredUser, SignedOut } from './schemas.js';
import { User } from '../../http/shared-schemas.js';

/** What the accounts routes need. */
export interface AccountsRoutesOptions {
  /** the public base URL (links, the same-origin rule) */
  baseUrl: string;
  accounts: AccountsService;
}

/** register, login, logout, me. */
export const accountsRoutes: FastifyPluginAsyncTypebox<AccountsRoutesOptions> = async (app, deps) => {
  const { accounts } = deps;
  const publicOrigin = new URL(deps.baseUrl).origin;
  const secure = deps.baseUrl.startsWith('https:');
  const maxAge = LOGIN_SESSION_MS / 1000;

  app.post(
    '/v1/auth/register',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['Account'],
        operationId: 'registerAccount',
        summary: 'Create an account',
        description:
          'Creates a user, an organisation owned by them and a project named "Default", and signs them in (sets the `service_session` cookie). An email already registered answers 409. Not idempotent by key: a retry answers 409.',
        body: Credentials,
        response: {
          201: okResponse(
            'The new user with their organisation and Default project; the `service_session` cookie is set.',
            RegisteredUser,
          ),
        },
      },
    },
    async (request, reply) => {
      checkSameOrigin(request, publicOrigin);
      const { user, cookie } = await accounts.register(request.body.email, request.body.password);
      setSessionCookie(reply, cookie, maxAge, secure);
      reply.code(201);
      return ok(user);
    },
  );

  app.post(
    '/v1/auth/login',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['Account'],
        operationId: 'signIn',
        summary: 'Sign in',
        description:
          'Sets the HTTP-only `service_session` cookie for 7 days, replacing (and revoking) any session the client held. Wrong email and wrong password answer the same 401; repeated failures for one email answer 429 with `Retry-After`.',
        body: LoginCredentials,
        response: { 200: okResponse('The signed-in user; the `service_session` cookie is set.', User) },
      },
    },
    async (request, reply) => {
      checkSameOrigin(request, publicOrigin);
      const { user, cookie } = await accounts.login(
        request.body.email,
        request.body.password,
        request.ip,
        readSessionCookie(request),
      );
      setSessionCookie(reply, cookie, maxAge, secure);
      return ok(user);
    },
  );

  app.post(
    '/v1/auth/logout',
    {
      config: { auth: USER_ONLY },
      schema: {
        tags: ['Account'],
        operationId: 'signOut',
        summary: 'Sign out',
        description:
          'Revokes the login session server-side and clears the cookie. Needs the cookie: 401 without it.',
        response: { 200: okResponse('Signed out; the cookie is cleared.', SignedOut) },
      },
    },
    async (request, reply) => {
      await accounts.logout(readSessionCookie(request)!);
      clearSessionCookie(reply, secure);
      return ok({ signed_out: true });
    },
  );

  app.get(
    '/v1/auth/session',
    {
      config: { auth: { accept: ['user'], anonymous: true } },
      schema: {
        tags: ['Account'],
        operationId: 'getSignInState',
        summary: 'Who is signed in, if anyone',
        description:
          'For pages that anybody may open: the signed-in user as `/v1/me` answers it, or `data: null` (200) without a `service_session` cookie, so that asking is not a failure. A cookie that is expired or signed out: 401. An API key: 401 (it is not a dashboard sign-in).',
        response: {
          200: okResponse('The signed-in user, or null.', Type.Union([User, Type.Null()])),
        },
      },
    },
    async (request) => ok(request.principal ? await accounts.me(request.principal.userId!) : null),
  );

  app.get(
    '/v1/me',
    {
      config: { auth: USER_ONLY },
      schema: {
        tags: ['Account'],
        operationId: 'getCurrentUser',
        summary: 'The signed-in user',
        description: 'Needs the `service_session` cookie: 401 without it.',
        response: { 200: okResponse('The user the cookie belongs to.', User) },
      },
    },
    async (request) => ok(await accounts.me(request.principal!.userId!)),
  );
};

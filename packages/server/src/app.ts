import { isUtf8 } from 'node:buffer';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { installAuth } from './http/auth.js';
import { ErrorEnvelope, installJsonNewline } from './http/envelope.js';
import { BadRequest } from './http/errors.js';
import { installConnectionLimits } from './http/connection-limits.js';
import { installPublicCors } from './http/cors.js';
import { installControlCharacterRule } from './http/control-characters.js';
import { installErrorHandling } from './http/error-handler.js';
import { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH } from './http/framework-errors.js';
import { installRequestLog } from './http/logging.js';
import { installRequestMetrics } from './http/metrics.js';
import { installStorageGuard } from './http/storage-guard.js';
import { liveRoutes } from './modules/live/routes.js';
import { recordingRoutes } from './modules/live/recording-routes.js';
import { recordingsRoutes } from './modules/recordings/routes.js';
import { guestsRoutes } from './modules/guests/routes.js';
import { installOpenApi } from './http/openapi.js';
import { validatorCompiler } from './http/validation.js';
import { accountsRoutes } from './modules/accounts/routes.js';
import { healthRoutes } from './modules/health/routes.js';
import { invitationsRoutes } from './modules/invitations/routes.js';
import { keysRoutes } from './modules/keys/routes.js';
import { membersRoutes } from './modules/members/routes.js';
import { projectsRoutes } from './modules/projects/routes.js';
import { sessionsRoutes } from './modules/sessions/routes.js';
import { webhooksRoutes } from './modules/webhooks/routes.js';
import { exportsRoutes } from './modules/exports/routes.js';
import { autoExportRoutes } from './modules/exports/auto-export-routes.js';
import { storyboardRoutes } from './modules/exports/storyboard-routes.js';
import { billingRoutes } from './modules/billing/routes.js';
import { agentsRoutes } from './modules/agents/routes.js';
import { oauthRoutes } from './modules/agents/oauth-routes.js';
import { dashboardRoutes, loadPage } from './modules/dashboard/routes.js';
import { sdkRoutes } from './modules/sdk/routes.js';
import type { Runtime } from './runtime.js';
import { MINUTE_MS } from './lib/time.js';

/** JSON request bodies are capped at 1 MiB. */
export const BODY_LIMIT = 1024 * 1024;

/**
 * A request's head must arrive within 20 s of its first byte, and the whole request (head and
 * body, at most BODY_LIMIT) within 60 s: a client sending slowly holds a connection no longer.
 * Answers and WebSocket sessions are not bounded by these.
 */
export const HEADERS_TIMEOUT_MS = 20_000;
export const REQUEST_TIMEOUT_MS = MINUTE_MS;

/** Builds the HTTP application over an open runtime. Tests build exactly this. */
export async function buildApp(runtime: Runtime): Promise<FastifyInstance> {
  const { config } = runtime;
  const app = Fastify({
    loggerInstance: runtime.logger,
    // No child logger per request (it costs on every request); error lines carry the request id themselves.
    childLoggerFactory: (logger) => logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    requestTimeout: REQUEST_TIMEOUT_MS,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.server.headersTimeout = HEADERS_TIMEOUT_MS;
  installConnectionLimits(app.server, {
    total: config.maxConnections,
    perAddress: config.maxConnectionsPerAddress,
    log: runtime.logger,
  });

  app.setValidatorCompiler(validatorCompiler());
  // Before any route is added: it gives each route a hook of its own.
  if (runtime.metrics) installRequestMetrics(app, runtime.metrics);
  installErrorHandling(app);
  installJsonNewline(app);

  // Every route answers failures with the error envelope; its schema documents and serialises them.
  app.addHook('onRoute', (route) => {
    if (!route.schema?.response) return;
    const response = route.schema.response as Record<string, unknown>;
    response['4xx'] ??= ErrorEnvelope;
    response['5xx'] ??= ErrorEnvelope;
  });

  // JSON is the only body format: anything else is 415 rather than a confusing validation error.
  app.removeAllContentTypeParsers();
  // An empty body under a JSON content type is "no body", so that optional bodies may be left out.
  // The bytes must be UTF-8: decoding them as a string would silently store U+FFFD for the rest.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    if (!isUtf8(bytes)) return done(new BadRequest('body is not valid UTF-8'), undefined);
    defaultJson(request, bytes.toString('utf8'), done);
  });
  // Only routes with a body schema get the hook: the others pay nothing for it.
  app.addHook('onRoute', (route) => {
    if (!route.schema?.body) return;
    const defaultBody = (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
      if (request.body === undefined) request.body = {};
      done();
    };
    route.preValidation = [
      defaultBody,
      ...(Array.isArray(route.preValidation)
        ? route.preValidation
        : route.preValidation
          ? [route.preValidation]
          : []),
    ];
  });

  installControlCharacterRule(app);
  installPublicCors(app);
  await installOpenApi(app, config);
  installAuth(app, {
    config,
    counters: runtime.counters,
    resolvers: {
      key: (s) => runtime.services.keys.resolve(s),
      cookie: (c) => runtime.services.accounts.resolveCookie(c),
      agent: (s) =>
        s.startsWith('oat_')
          ? runtime.services.oauth.resolveAccess(s)
          : runtime.services.agents.resolveToken(s),
    },
  });
  installRequestLog(app, { enabled: runtime.log.logger.isLevelEnabled('info'), write: runtime.log.write });
  installStorageGuard(app, runtime.storage);

  const { services, idempotency } = runtime;
  const baseUrl = config.publicBaseUrl;
  // The dashboard's one HTML page, read once: every app path and a replay link opened in a browser answer it.
  const page = loadPage();
  await app.register(healthRoutes, {
    database: runtime.database,
    storage: runtime.storage,
    unready: () => runtime.unready(),
  });
  await app.register(accountsRoutes, { baseUrl, accounts: services.accounts });
  await app.register(projectsRoutes, { baseUrl, idempotency, projects: services.projects });
  await app.register(membersRoutes, { baseUrl, members: services.members });
  await app.register(keysRoutes, { baseUrl, idempotency, keys: services.keys, projects: services.projects });
  await app.register(sessionsRoutes, { baseUrl, idempotency, sessions: services.sessions });
  await app.register(invitationsRoutes, { baseUrl, idempotency, invitations: services.invitations });
  await app.register(liveRoutes, {
    heartbeatS: config.wsHeartbeatS,
    hub: runtime.hub,
    live: services.live,
    streams: runtime.streams,
  });
  await app.register(recordingRoutes, { live: services.live });
  await app.register(guestsRoutes, { baseUrl, idempotency, guests: services.guests });
  await app.register(recordingsRoutes, { baseUrl, idempotency, recordings: services.recordings, page });
  await app.register(webhooksRoutes, { baseUrl, idempotency, webhooks: services.webhooks });
  await app.register(exportsRoutes, { idempotency, exports: services.exports });
  await app.register(autoExportRoutes, { autoExport: services.autoExport });
  await app.register(storyboardRoutes, {
    recordings: services.recordings,
    storyboards: services.storyboards,
  });
  await app.register(billingRoutes, { baseUrl, billing: services.billing });
  await app.register(agentsRoutes, {
    baseUrl,
    mcp: {
      db: runtime.database.db,
      version: '1.0.0',
      agents: services.agents,
      sessions: services.sessions,
      recordings: services.recordings,
      exports: services.exports,
      live: services.live,
      guests: services.guests,
      billing: services.billing,
    },
  });
  await app.register(oauthRoutes, { baseUrl, oauth: services.oauth, projects: services.projects });
  await app.register(dashboardRoutes, { page });
  await app.register(sdkRoutes, { embedOrigins: (id) => services.projects.embedOrigins(id) });
  return app;
}

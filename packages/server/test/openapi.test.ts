import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../src/config.js';
import { installOpenApi } from '../src/http/openapi.js';
import { okResponse } from '../src/http/openapi-docs.js';
import { EVENT_TYPES } from '../src/modules/webhooks/schemas.js';
import { call, createSession, expectError, useApp, type Tenant, type TestApp } from './support/app.js';
import { eventually, jpeg, join, leave, listen, openSocket, publish, token } from './support/live.js';
import { receiver, type Receiver } from './support/webhooks.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsImport as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const SCHEMAS = '#/components/schemas/';

/** Every operation of the document: in `paths` and in `webhooks`. */
function operationsOf(doc: Json, sections = ['paths', 'webhooks']): { where: string; op: Json }[] {
  const out: { where: string; op: Json }[] = [];
  for (const section of sections)
    for (const [path, item] of Object.entries<Json>(doc[section] ?? {}))
      for (const method of METHODS)
        if (item[method]) out.push({ where: `${method.toUpperCase()} ${path}`, op: item[method] });
  return out;
}

const byId = (doc: Json, id: string): Json => {
  const found = operationsOf(doc).find((o) => o.op.operationId === id);
  if (!found) throw new Error(`no operation ${id}`);
  return found.op;
};

/** An operation's request body, through `#/components/requestBodies/…` when it is a reference. */
const bodyOf = (doc: Json, id: string): Json => {
  const body = byId(doc, id).requestBody;
  return body?.$ref ? doc.components.requestBodies[body.$ref.split('/').pop()] : body;
};

/** A response object, through `#/components/responses/…` when it is a reference. */
const resolveResponse = (doc: Json, r: Json): Json =>
  r.$ref ? doc.components.responses[r.$ref.split('/').pop()] : r;

/** The `data` schema of an operation's JSON success answer. */
const dataOf = (doc: Json, id: string, status = '200'): Json =>
  byId(doc, id).responses[status].content['application/json'].schema.properties.data;

/** Validates values against the document's own schemas, `$ref`s resolved inside it. */
function validatorFor(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const local = (schema: unknown) =>
    JSON.parse(JSON.stringify(schema).replaceAll(`"${SCHEMAS}`, '"urn:vss:doc#/$defs/')) as Json;
  ajv.addSchema({ $id: 'urn:vss:doc', $defs: local(doc.components.schemas) });
  const compiled = new Map<string, ValidateFunction>();
  return (schema: Json, value: unknown): string[] => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) compiled.set(key, (validate = ajv.compile(local(schema))));
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let a: Tenant;
  let doc: Json;
  let check: ReturnType<typeof validatorFor>;
  useApp((app, tenant) => ((t = app), (a = tenant)), {
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', SESSION_DEPARTURE_TIMEOUT_S: '0' },
    jobPollMs: 100,
  });
  const receivers: Receiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
  });
  beforeAll(async () => {
    const res = await call(t, 'GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = JSON.parse(res.raw);
    check = validatorFor(doc);
  });

  it('is OpenAPI 3.1 under the Apache-2.0 license', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
    // The description points to the WebSocket operation rather than describing it alone.
    expect(doc.info.description).toContain('connectLive');
  });

  it('names every operation once, camelCase and verb first', () => {
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(80);
    const ids = ops.map((o) => o.op.operationId);
    for (const [i, id] of ids.entries()) expect(id, ops[i]!.where).toMatch(/^[a-z]+[A-Z][A-Za-z0-9]*$/);
    expect(new Set(ids).size).toBe(ids.length);
    const where = Object.fromEntries(ops.map((o) => [o.op.operationId, o.where]));
    expect(where).toMatchObject({
      createSession: 'POST /v1/sessions',
      listSessions: 'GET /v1/sessions',
      getSession: 'GET /v1/sessions/{sessionId}',
      createProjectSession: 'POST /v1/projects/{projectId}/sessions',
      setSessionVisibility: 'PUT /v1/sessions/{sessionId}/visibility',
      createReplayLink: 'POST /v1/sessions/{sessionId}/replay-links',
      enqueueExport: 'GET /v1/sessions/{sessionId}/export',
      downloadExport: 'GET /v1/exports/{jobId}/download',
      connectLive: 'GET /ws',
    });
  });

  it('describes the success answer of every operation, with its media type, and its failures', () => {
    for (const { where, op } of operationsOf(doc, ['paths'])) {
      const codes = Object.keys(op.responses);
      const success = codes.filter((c) => /^(2\d\d|101|3\d\d)$/.test(c));
      expect(success, where).not.toEqual([]);
      for (const c of success) expect(op.responses[c].description, `${where} ${c}`).toMatch(/\w/);
      // Some success answer has a body and says what it is, or the success is a 101 or a redirect.
      const withBody = success.filter((c) => op.responses[c].content);
      if (withBody.length === 0)
        expect(
          success.every((c) => /^(101|3\d\d)$/.test(c)),
          where,
        ).toBe(true);
      for (const c of withBody) expect(Object.keys(op.responses[c].content), where).not.toEqual([]);
      expect(
        codes.some((c) => c.startsWith('4')),
        `${where} documents no 4xx`,
      ).toBe(true);
    }
    const text = JSON.stringify(doc);
    expect(text).not.toContain('Default Response');

    const download = byId(doc, 'downloadExport').responses;
    for (const status of ['200', '206'])
      expect(download[status].content['video/mp4'].schema).toEqual({ type: 'string', format: 'binary' });
    expect(download['206'].headers['Content-Range']).toBeDefined();
    expect(Object.keys(byId(doc, 'getReplayWindow').responses['200'].content).sort()).toEqual([
      'application/json',
      'text/html',
    ]);
    expect(Object.keys(byId(doc, 'getHealth').responses['200'].content)).toEqual(['text/plain']);
    expect(byId(doc, 'getHealth').responses['503'].content['text/plain']).toBeDefined();
    expect(byId(doc, 'authorizeOAuthClient').responses['200'].content['text/html']).toBeDefined();
    expect(byId(doc, 'answerOAuthConsent').responses['302'].headers.Location).toBeDefined();
    expect(byId(doc, 'exchangeOAuthToken').responses['400'].content['application/json'].schema).toEqual({
      $ref: `${SCHEMAS}OAuthError`,
    });
    // Failures of the REST operations: the error envelope, by reference.
    const failures = byId(doc, 'getSession').responses;
    expect(failures['4XX']).toEqual({ $ref: '#/components/responses/ClientError' });
    expect(failures['5XX']).toEqual({ $ref: '#/components/responses/ServerError' });
    expect(resolveResponse(doc, failures['4XX']).content['application/json'].schema).toEqual({
      $ref: `${SCHEMAS}ErrorEnvelope`,
    });
    expect(doc.components.schemas.ErrorEnvelope.properties.error).toEqual({ $ref: `${SCHEMAS}Error` });
  });

  it('requires no parameter that has a default, and the handlers still get the default', async () => {
    for (const { where, op } of operationsOf(doc))
      for (const p of op.parameters ?? [])
        if (p.schema?.default !== undefined) expect(p.required, `${where} ${p.in} ${p.name}`).not.toBe(true);
    const param = (id: string, name: string) =>
      byId(doc, id).parameters.find((p: Json) => p.name === name) as Json;
    expect(param('listSessions', 'limit')).toMatchObject({ required: false, schema: { default: 50 } });
    expect(param('enqueueExport', 'layout').required).toBe(false);
    expect(param('enqueueExport', 'orientation').required).toBe(false);
    expect(param('listWebhooks', 'include_inactive').required).toBe(false);
    // Without a default it stays required.
    expect(param('getPlaybackWindow', 'from_ts').required).toBe(true);
    expect(param('getSession', 'sessionId').required).toBe(true);
    // A body whose every field is optional may be left out; one with a required field may not.
    expect(bodyOf(doc, 'createSession').required).toBe(false);
    expect(bodyOf(doc, 'createProject').required).toBe(true);
    expect(bodyOf(doc, 'updateProject').required).toBe(true);
    // A body field with a default may be left out too: a webhook is active unless told otherwise.
    expect(bodyOf(doc, 'createWebhook').content['application/json'].schema.required).toEqual([
      'url',
      'events',
    ]);

    // Called as a generated client would, leaving every defaulted parameter out.
    for (let i = 0; i < 51; i++) await createSession(t, a.key, `s${i}`);
    const page = await call(t, 'GET', '/v1/sessions', { key: a.key });
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(50);
    expect(String(page.headers.link)).toContain('limit=50');
    const hooks = await call(t, 'GET', '/v1/webhooks', { key: a.key });
    expect(hooks.status).toBe(200);
  });

  it('names each resource as a component and refers to it', () => {
    const ref = (name: string) => ({ $ref: `${SCHEMAS}${name}` });
    const list = (name: string) => ({ type: 'array', items: ref(name) });
    expect(dataOf(doc, 'getSession')).toEqual(ref('Session'));
    expect(dataOf(doc, 'createSession', '201')).toEqual(ref('Session'));
    expect(dataOf(doc, 'listSessions')).toEqual(list('Session'));
    expect(dataOf(doc, 'listPublicSessions')).toEqual(list('PublicSession'));
    expect(dataOf(doc, 'getProject')).toEqual(ref('Project'));
    expect(dataOf(doc, 'listApiKeys')).toEqual(list('ApiKey'));
    expect(dataOf(doc, 'createApiKey', '201')).toEqual(ref('CreatedApiKey'));
    expect(dataOf(doc, 'listRestrictedKeys')).toEqual(list('RestrictedKey'));
    expect(dataOf(doc, 'listWebhooks')).toEqual(list('Webhook'));
    expect(dataOf(doc, 'createWebhook', '201')).toEqual(ref('WebhookWithSecret'));
    expect(dataOf(doc, 'listWebhookDeliveries')).toEqual(list('WebhookDelivery'));
    expect(dataOf(doc, 'getExport')).toEqual(ref('ExportJob'));
    expect(dataOf(doc, 'getManifest')).toEqual(ref('Manifest'));
    expect(dataOf(doc, 'getUsage')).toEqual(ref('Usage'));
    expect(dataOf(doc, 'getBillingSummary')).toEqual(ref('BillingSummary'));
    expect(dataOf(doc, 'getCurrentUser')).toEqual(ref('User'));
    expect(dataOf(doc, 'listMembers')).toEqual(list('User'));
    expect(dataOf(doc, 'removeMember')).toEqual(ref('Deleted'));
    expect(dataOf(doc, 'deleteWebhook')).toEqual(ref('Deleted'));
    expect(dataOf(doc, 'createConnectionToken')).toEqual(ref('ConnectionToken'));
    // Request shapes are named request bodies (generators then let a field with a default be left out).
    expect(byId(doc, 'createSession').requestBody).toEqual({
      $ref: '#/components/requestBodies/CreateSessionRequest',
    });
    expect(bodyOf(doc, 'createSession').content['application/json'].schema.title).toBe(
      'CreateSessionRequest',
    );
    // Nothing titled is left inline: every named shape is one component.
    const inline: string[] = [];
    const visit = (node: unknown, at: string): void => {
      if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${at}/${i}`));
      else if (node && typeof node === 'object') {
        if (typeof (node as Json).title === 'string') inline.push(at);
        for (const [k, v] of Object.entries(node)) visit(v, `${at}/${k}`);
      }
    };
    visit(doc.paths, 'paths');
    visit(doc.webhooks, 'webhooks');
    expect(inline).toEqual([]);
  });

  it('documents answers as the server gives them', async () => {
    const session = await createSession(t, a.key, 'documented');
    const expectMatches = async (id: string, url: string, status = '200') => {
      const res = await call(t, 'GET', url, { key: a.key });
      expect(res.status).toBe(Number(status));
      const schema = byId(doc, id).responses[status].content['application/json'].schema;
      expect(check(schema, res.body), id).toEqual([]);
    };
    await expectMatches('getSession', `/v1/sessions/${session.id}`);
    await expectMatches('listSessions', '/v1/sessions?limit=3');
    await expectMatches('listProjects', '/v1/projects');
    await expectMatches('getBillingLimits', '/v1/billing/limits');
    const failure = await call(t, 'GET', '/v1/sessions/00000000-0000-4000-8000-000000000000', { key: a.key });
    expectError(failure, 404, 'NOT_FOUND');
    const envelope = resolveResponse(doc, byId(doc, 'getSession').responses['4XX']);
    expect(check(envelope.content['application/json'].schema, failure.body)).toEqual([]);
    // The check can fail: an answer of another shape does not pass.
    expect(
      check(byId(doc, 'getSession').responses['200'].content['application/json'].schema, failure.body),
    ).not.toEqual([]);
  });

  it('lists every webhook event type, with the body and the signature headers of its delivery', async () => {
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES]);
    const bodies: Record<string, Json> = {};
    for (const type of EVENT_TYPES) {
      const post = doc.webhooks[type].post;
      expect(post.operationId).toMatch(/^deliver[A-Z]/);
      const headers = (post.parameters as Json[]).filter((p) => p.in === 'header').map((p) => p.name);
      expect(headers).toEqual(
        expect.arrayContaining([
          'X-Service-Signature',
          'X-Service-Event-Id',
          'X-Service-Timestamp',
          'webhook-id',
          'webhook-timestamp',
          'webhook-signature',
        ]),
      );
      const body = post.requestBody.content['application/json'].schema;
      expect(body.$ref).toMatch(/Event$/);
      bodies[type] = body;
      const named = doc.components.schemas[body.$ref.slice(SCHEMAS.length)];
      expect(named.properties.type.enum).toEqual([type]);
      expect(Object.keys(named.properties)).toEqual([
        'id',
        'type',
        'timestamp',
        'project_id',
        'session_id',
        'data',
      ]);
    }
    const dataRef = (type: string) =>
      doc.components.schemas[bodies[type]!.$ref.slice(SCHEMAS.length)].properties.data.$ref;
    expect(dataRef('session.created')).toBe(`${SCHEMAS}Session`);
    expect(dataRef('session.ended')).toBe(`${SCHEMAS}Session`);
    expect(dataRef('recording.ready')).toBe(`${SCHEMAS}RecordingReadyData`);
    expect(dataRef('export.completed')).toBe(`${SCHEMAS}ExportJob`);
    expect(dataRef('export.failed')).toBe(`${SCHEMAS}ExportJob`);
    expect(dataRef('recording.failed')).toBe(`${SCHEMAS}RecordingFailedData`);

    // Real deliveries match what the document says of them, headers included.
    const r = await receiver();
    receivers.push(r);
    const hook = await call(t, 'POST', '/v1/webhooks', {
      key: a.key,
      body: {
        url: r.url,
        events: ['session.created', 'session.started', 'session.ended', 'recording.ready'],
      },
    });
    expect(hook.status).toBe(201);
    const session = await createSession(t, a.key, 'delivered');
    const s = await join(t, a.key, session.id, 'alice');
    s.send(publish('media/alice/cam', jpeg(1), { id: 'f1' }));
    await s.waitFor((m) => m.event === 'ack');
    await leave(s);
    await eventually(() => r.hits.length >= 4, 20_000, 'four deliveries');
    expect(r.hits.map((h) => h.body.type).sort()).toEqual(
      ['recording.ready', 'session.created', 'session.ended', 'session.started'].sort(),
    );
    for (const hit of r.hits) {
      const post = doc.webhooks[hit.body.type].post;
      expect(check(bodies[hit.body.type]!, hit.body), hit.body.type).toEqual([]);
      for (const p of post.parameters as Json[]) {
        const value = hit.headers[p.name.toLowerCase()];
        expect(value, p.name).toBeDefined();
        expect(check(p.schema, value), `${hit.body.type} ${p.name}`).toEqual([]);
      }
    }
    // A body of one type is not valid as another's.
    const created = r.hits.find((h) => h.body.type === 'session.created')!;
    expect(check(bodies['recording.ready']!, created.body)).not.toEqual([]);
  });

  it('documents the live WebSocket as an operation, with its messages', async () => {
    const ws = doc.paths['/ws'].get;
    expect(ws.operationId).toBe('connectLive');
    const params = Object.fromEntries((ws.parameters as Json[]).map((p) => [p.name, p]));
    for (const name of ['session', 'access_token', 'user_id'])
      expect(params[name]).toMatchObject({ in: 'query', required: true });
    expect(params.format).toMatchObject({ required: false, schema: { enum: ['json', 'binary'] } });
    expect(Object.keys(ws.responses)).toEqual(expect.arrayContaining(['101', '401', '409']));
    expect(ws.responses['401'].content['application/json'].schema).toEqual({
      $ref: `${SCHEMAS}ErrorEnvelope`,
    });
    expect(ws.security).toEqual([]);
    expect(ws['x-messages'].client).toEqual({ $ref: `${SCHEMAS}LiveClientMessage` });
    expect(ws['x-messages'].server).toEqual({ $ref: `${SCHEMAS}LiveServerMessage` });
    const control = doc.components.schemas.LiveControl.anyOf.map(
      (r: Json) => doc.components.schemas[r.$ref.slice(SCHEMAS.length)].properties.event.enum,
    );
    expect(control.flat().sort()).toEqual(
      [
        'ack',
        'end',
        'error',
        'join',
        'keyframe',
        'layer',
        'leave',
        'reconnect',
        'recording',
        'removed',
        'replaced',
        'skip',
        'track.published',
        'track.unpublished',
        'welcome',
      ].sort(),
    );

    // What a real connection exchanges matches the schemas; the upgrade's refusals are unchanged.
    const base = await listen(t);
    const session = await createSession(t, a.key, 'live');
    const refused = await openSocket(base, { session: session.id, access_token: 'nope', user_id: 'x' }).catch(
      (err: Error) => err,
    );
    expect(String(refused)).toContain('401');
    const sent = [
      publish('media/alice/cam', jpeg(2), { id: 'p1' }),
      publish('chat', Buffer.from(JSON.stringify({ text: 'hi' })), { id: 7 }),
      { type: 'unpublish', stream_type: 'media/alice/cam' },
    ];
    for (const m of sent) expect(check(ws['x-messages'].client, m)).toEqual([]);
    expect(check(ws['x-messages'].client, { type: 'subscribe' })).not.toEqual([]);
    const alice = await join(t, a.key, session.id, 'alice');
    const bob = await join(t, a.key, session.id, 'bob');
    await alice.waitFor((m) => m.event === 'join' && m.user_id === 'bob');
    // One at a time: a publish is accepted asynchronously, and an unpublish needs its track.
    alice.send(sent[0]);
    await alice.waitFor((m) => m.event === 'ack' && m.data.id === 'p1');
    alice.send(sent[1]);
    await alice.waitFor((m) => m.event === 'ack' && m.data.id === '7');
    alice.send(sent[2]);
    await bob.waitFor((m) => m.event === 'track.unpublished');
    alice.send(publish('media/bob/cam', jpeg(3), { id: 'not-mine' }));
    await alice.waitFor((m) => m.event === 'error' && m.data.id === 'not-mine');
    await leave(bob);
    await alice.waitFor((m) => m.event === 'leave');
    await leave(alice);
    const received = [...alice.received.text, ...bob.received.text];
    for (const event of ['welcome', 'join', 'leave', 'ack', 'error', 'track.published', 'track.unpublished'])
      expect(
        received.some((m) => m.event === event),
        event,
      ).toBe(true);
    expect(received.some((m) => m.type === 'message')).toBe(true);
    for (const m of received) expect(check(ws['x-messages'].server, m), JSON.stringify(m)).toEqual([]);
    const replay = await token(t, a.key, session.id, 'viewer', { replay: true, speed: 16 });
    const viewer = await openSocket(base, { session: session.id, access_token: replay, user_id: 'viewer' });
    const end = await viewer.waitFor((m) => m.event === 'end');
    for (const m of viewer.received.text) expect(check(ws['x-messages'].server, m)).toEqual([]);
    expect(end.user_id).toBe('system');
    await viewer.closed;
  });
});

describe('building the OpenAPI document', () => {
  const config = { publicBaseUrl: 'http://vss.test' } as Config;
  const handler = async () => ({ data: true, error: null });

  it('refuses a documented route without an operationId as it is registered', async () => {
    const app = Fastify();
    await installOpenApi(app, config);
    app.get('/hidden', { schema: { hide: true } }, handler);
    app.get('/named', { schema: { operationId: 'getNamed' } }, handler);
    expect(() => app.get('/nameless', { schema: { summary: 'no name' } }, handler)).toThrow(
      /GET \/nameless: a documented route needs schema\.operationId/,
    );
    await app.close();
  });

  it('refuses one operationId on two routes, and one title on two different schemas', async () => {
    const twice = Fastify();
    await installOpenApi(twice, config);
    twice.get('/a', { schema: { operationId: 'getThing' } }, handler);
    twice.get('/b', { schema: { operationId: 'getThing' } }, handler);
    await twice.ready();
    expect(() => twice.swagger()).toThrow(/operationId "getThing" is used by both GET \/a and GET \/b/);
    await twice.close();

    const clash = Fastify();
    await installOpenApi(clash, config);
    const first = Type.Object({ id: Type.String() }, { title: 'Thing' });
    const second = Type.Object({ id: Type.Integer() }, { title: 'Thing' });
    clash.get('/a', { schema: { operationId: 'getA', response: { 200: okResponse('a', first) } } }, handler);
    clash.get('/b', { schema: { operationId: 'getB', response: { 200: okResponse('b', second) } } }, handler);
    await clash.ready();
    expect(() => clash.swagger()).toThrow(/two different schemas are titled "Thing"/);
    await clash.close();

    const same = Fastify();
    await installOpenApi(same, config);
    same.get('/a', { schema: { operationId: 'getA', response: { 200: okResponse('a', first) } } }, handler);
    same.get('/b', { schema: { operationId: 'getB', response: { 200: okResponse('b', first) } } }, handler);
    await same.ready();
    const doc = same.swagger() as Json;
    expect(doc.components.schemas.Thing).toMatchObject({
      title: 'Thing',
      properties: { id: { type: 'string' } },
    });
    expect(doc.paths['/b'].get.responses['200'].content['application/json'].schema.properties.data).toEqual({
      $ref: `${SCHEMAS}Thing`,
    });
    await same.close();
  });
});

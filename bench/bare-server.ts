/**
 * The baseline of the api benchmark: bare Fastify 5, no auth, no storage, no schemas, no logger,
 * answering the same JSON bodies as the real session routes. Run as its own process:
 *   PORT=… BARE_GET_BODY='{"data":{…},"error":null}' node --import tsx bench/bare-server.ts
 * BARE_GET_BODY is the exact body of a real GET session answer (the bare GET answers the same
 * bytes); the bare POST answers 201 with that session, given a fresh id, the posted name and now.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';

interface SessionEnvelope {
  data: Record<string, unknown>;
  error: null;
}

const fallback: SessionEnvelope = {
  data: {
    id: '00000000-0000-4000-8000-000000000000',
    project_id: '00000000-0000-4000-8000-000000000001',
    name: 'bench',
    created_by: 'api_key',
    started_at: null,
    ended_at: null,
    created_at: new Date(0).toISOString(),
    is_public: false,
  },
  error: null,
};
const getBody: SessionEnvelope = process.env.BARE_GET_BODY ? JSON.parse(process.env.BARE_GET_BODY) : fallback;

const app = Fastify({ logger: false });

app.get('/health', async (_request, reply) => {
  reply.type('text/plain; charset=utf-8');
  return 'ok';
});

app.get('/v1/projects/:projectId/sessions/:sessionId', async () => getBody);

app.post('/v1/sessions', async (request, reply) => {
  const name = (request.body as { name?: unknown } | undefined)?.name;
  reply.code(201);
  return {
    data: {
      ...getBody.data,
      id: randomUUID(),
      name: typeof name === 'string' ? name : '',
      created_at: new Date().toISOString(),
    },
    error: null,
  };
});

await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void app.close().finally(() => process.exit(0));
  });
}

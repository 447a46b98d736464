import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';

/** One request a receiver got: the raw bytes as they arrived, and its headers. */
export interface Hit {
  path: string;
  raw: Buffer;
  headers: IncomingHttpHeaders;
  body: any;
  at: number;
}

/** How a receiver answers a hit: a status, no answer at all, or a cut connection. */
export type Answer = number | 'hang' | 'cut' | ((res: ServerResponse) => void);

/** A real HTTP receiver on loopback that records every request. */
export interface Receiver {
  url: string;
  port: number;
  hits: Hit[];
  /** decides the answer to each hit (default 200) */
  answer: (hit: Hit, index: number) => Answer;
  close(): Promise<void>;
}

export async function receiver(port = 0, answer: Receiver['answer'] = () => 200): Promise<Receiver> {
  const hits: Hit[] = [];
  const hanging: ServerResponse[] = [];
  const r = { hits, answer } as Receiver;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: any = null;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = null;
      }
      const hit = { path: req.url ?? '', raw, headers: req.headers, body, at: Date.now() };
      hits.push(hit);
      const a = r.answer(hit, hits.length - 1);
      if (a === 'hang') hanging.push(res);
      else if (a === 'cut') req.socket.destroy();
      else if (typeof a === 'function') a(res);
      else res.writeHead(a, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  r.port = (server.address() as { port: number }).port;
  r.url = `http://127.0.0.1:${r.port}/hook`;
  r.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  };
  return r;
}

/** The check a receiver does: HMAC-SHA256 of the raw body with the secret, compared in constant time. */
export function verifies(secret: string, hit: Hit): boolean {
  const expected = createHmac('sha256', secret).update(hit.raw).digest();
  const given = Buffer.from(String(hit.headers['x-service-signature'] ?? ''), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The Standard Webhooks check: v1 signature over "{id}.{timestamp}.{body}" with the base64 key. */
export function verifiesStandard(secret: string, hit: Hit): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const content = `${hit.headers['webhook-id']}.${hit.headers['webhook-timestamp']}.${hit.raw.toString('utf8')}`;
  const expected = createHmac('sha256', key).update(content).digest('base64');
  return String(hit.headers['webhook-signature'] ?? '')
    .split(' ')
    .some((s) => s === `v1,${expected}`);
}

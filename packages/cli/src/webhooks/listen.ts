import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WEBHOOK_HEADERS } from '@vss/protocol';

/** A delivery is small (an event and its session); anything far larger is not one. */
const MAX_BODY_BYTES = 1024 * 1024;
/** How long the forwarding target may take: the server gives the whole attempt 5 s by default. */
const FORWARD_TIMEOUT_MS = 4500;
/** Event ids remembered to mark repeats (retries arrive with the same id). */
const REMEMBERED = 10_000;

/** The headers of a delivery passed on with --forward-to, so that the target can verify it too. */
const FORWARDED = ['content-type', 'user-agent', ...Object.values(WEBHOOK_HEADERS)];

export interface ListenOptions {
  host: string;
  port: number;
  secret: string;
  toleranceS: number;
  forwardTo?: string;
}

/** What happened to one request, as printed. */
export interface Received {
  received_at: string;
  valid: boolean;
  /** the status this receiver answered */
  status: number;
  /** why it was refused, for an invalid one */
  reason?: string;
  event_id: string | null;
  type: string | null;
  session_id: string | null;
  /** the same event id was received before (a retry) */
  repeat: boolean;
  /** the event as sent, for a valid one */
  event?: unknown;
  forwarded?: { url: string; status: number | null; error: string | null };
}

export interface Listener {
  /** http://host:port */
  url: string;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The event's fields, when the body is the JSON object of a delivery. */
function parseEvent(raw: Buffer): { event: unknown; type: string | null; sessionId: string | null } {
  try {
    const event = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    return { event, type: str(event?.type), sessionId: str(event?.session_id) };
  } catch {
    return { event: null, type: null, sessionId: null };
  }
}

/** Passes a verified delivery on, bytes and signature headers unchanged, and answers the target's status. */
async function forward(
  url: string,
  req: IncomingMessage,
  raw: Buffer,
): Promise<NonNullable<Received['forwarded']>> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const v = req.headers[name];
    if (typeof v === 'string') headers[name] = v;
  }
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: raw,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    return { url, status: res.status, error: null };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const error =
      e.name === 'TimeoutError' ? `no answer within ${FORWARD_TIMEOUT_MS} ms` : (e.cause?.code ?? e.message);
    return { url, status: null, error };
  }
}

/**
 * A local receiver of deliveries for development: verifies each POST as a real receiver must
 * (`@vss/protocol`'s verifyWebhook: both signatures over the raw bytes, the signed timestamp),
 * answers 2xx for a valid one (or the status of the --forward-to target) and 401 for an invalid
 * one, and reports every delivery to `report`.
 */
export async function listen(options: ListenOptions, report: (r: Received) => void): Promise<Listener> {
  const seen = new Set<string>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const answer = (status: number, text: string) =>
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text + '\n');
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      answer(405, 'webhook deliveries are POST requests');
      return;
    }
    const raw = await readBody(req);
    const receivedAt = new Date();
    const headerId = req.headers[WEBHOOK_HEADERS.STANDARD_ID] ?? req.headers[WEBHOOK_HEADERS.EVENT_ID];
    const base = {
      received_at: receivedAt.toISOString(),
      event_id: typeof headerId === 'string' ? headerId : null,
    };
    if (raw === null) {
      answer(413, 'too large for a delivery');
      report({
        ...base,
        valid: false,
        status: 413,
        reason: 'body over 1 MiB',
        type: null,
        session_id: null,
        repeat: false,
      });
      return;
    }
    const { event, type, sessionId } = parseEvent(raw);
    const verdict = await verifyWebhook({
      secret: options.secret,
      headers: req.headers,
      body: raw,
      toleranceS: options.toleranceS,
      nowMs: receivedAt.getTime(),
    });
    if (!verdict.valid) {
      answer(401, `invalid signature: ${verdict.reason}`);
      report({
        ...base,
        valid: false,
        status: 401,
        reason: verdict.reason,
        type,
        session_id: sessionId,
        repeat: false,
      });
      return;
    }
    const id = base.event_id!;
    const repeat = seen.has(id);
    if (!repeat) {
      if (seen.size >= REMEMBERED) seen.delete(seen.values().next().value as string);
      seen.add(id);
    }
    const received: Received = {
      ...base,
      valid: true,
      status: 200,
      type,
      session_id: sessionId,
      repeat,
      event,
    };
    if (options.forwardTo) {
      received.forwarded = await forward(options.forwardTo, req, raw);
      // The server sees what the target answered, so its retries behave as they will in production.
      received.status = received.forwarded.status ?? 502;
      answer(received.status, received.forwarded.error ?? `forwarded: ${received.status}`);
    } else answer(200, 'ok');
    report(received);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500).end(`${err.message}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The server keeps its connections alive between deliveries: they would hold the close.
        server.closeAllConnections();
      }),
  };
}

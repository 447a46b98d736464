/**
 * The floor of the playback benchmark: a bare `node:http` server that answers each request with the
 * real server's answer to the same request, fetched from it (UPSTREAM) the first time it is asked
 * and held in memory from then on, sent in one write with a Content-Length. Once every answer has
 * been asked for once, it does no work of a playback server at all (no index, no file read, no
 * checksum, no base64, no JSON): what it measures is moving the answers' bytes over HTTP to the
 * benchmark's reader on this machine, the most any playback server could reach here. Run as its
 * own process:
 *   PORT=… UPSTREAM=http://127.0.0.1:… node --import tsx bench/playback-floor-server.ts
 * GET /health answers 200 so that the benchmark knows it is up.
 */
import { createServer, request, type ServerResponse } from 'node:http';

const upstream = new URL(process.env.UPSTREAM ?? 'http://127.0.0.1:3000');

interface Answer {
  status: number;
  type: string;
  body: Buffer;
}
const answers = new Map<string, Answer>();

function send(res: ServerResponse, a: Answer): void {
  res.writeHead(a.status, { 'content-type': a.type, 'content-length': a.body.length });
  res.end(a.body);
}

const server = createServer((req, res) => {
  const path = req.url ?? '/';
  if (path === '/health') return send(res, { status: 200, type: 'text/plain', body: Buffer.from('ok') });
  const held = answers.get(path);
  if (held) return send(res, held);
  const up = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      path,
      headers: { authorization: req.headers.authorization ?? '' },
    },
    (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => {
        const a = {
          status: r.statusCode ?? 502,
          type: String(r.headers['content-type'] ?? 'application/json'),
          body: Buffer.concat(chunks),
        };
        if (a.status === 200) answers.set(path, a);
        send(res, a);
      });
    },
  );
  up.on('error', (err) => send(res, { status: 502, type: 'text/plain', body: Buffer.from(String(err)) }));
  up.end();
});

server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');

/**
 * The baseline of the fanout benchmark: a bare `ws` relay. Every message (binary or text) received
 * on a connection is sent, as the same bytes, to every other connection of the same room (the
 * `room` query parameter). No auth, no recording, no JSON handling, no flow control. Run as its
 * own process:
 *   PORT=… node --import tsx bench/relay-server.ts
 * GET /health answers 200 so that the benchmark knows it is up.
 */
import { createServer } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

const rooms = new Map<string, Set<WebSocket>>();

const http = createServer((request, response) => {
  response.writeHead(request.url === '/health' ? 200 : 404, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(request.url === '/health' ? 'ok' : 'not found');
});

// The same socket options as the real gateway: no compression, large messages allowed.
const wss = new WebSocketServer({ server: http, perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 });

wss.on('connection', (socket, request) => {
  const room = new URL(request.url ?? '/', 'http://relay').searchParams.get('room') ?? '';
  let members = rooms.get(room);
  if (!members) {
    members = new Set();
    rooms.set(room, members);
  }
  members.add(socket);
  const peers = members;
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    for (const peer of peers)
      if (peer !== socket && peer.readyState === peer.OPEN) peer.send(data, { binary: isBinary });
  });
  socket.on('close', () => {
    peers.delete(socket);
    if (peers.size === 0 && rooms.get(room) === peers) rooms.delete(room);
  });
  socket.on('error', () => {});
});

http.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
    http.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  });
}

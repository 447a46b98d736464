import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

/** What the connection caps need. */
export interface ConnectionLimits {
  /** MAX_CONNECTIONS: open connections in all (HTTP and WebSocket) */
  total: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: open connections from one client address; 0: no such cap */
  perAddress: number;
  log: FastifyBaseLogger;
}

/** How long after a refusal is logged the next one may be: an attack must not flood the log. */
const REFUSAL_LOG_INTERVAL_MS = 10_000;

/**
 * Caps the connections the server holds, in all and per client address, counted from the moment
 * a socket is accepted, before a byte of its request: a client that opens connections and sends
 * its headers slowly, or never, would otherwise hold every file descriptor until headersTimeout.
 * A connection past a cap is closed at once, without an answer (nothing has been read to answer).
 * The address is the socket's: behind a reverse proxy every client has the proxy's, so the
 * per-address cap then limits the proxy (README: "Behind a reverse proxy").
 */
export function installConnectionLimits(server: Server, limits: ConnectionLimits): void {
  const perAddress = new Map<string, number>();
  let open = 0;
  let refused = 0;
  let loggedAt = 0;

  const refuse = (socket: Socket, address: string, why: string) => {
    socket.destroy();
    refused++;
    const now = Date.now();
    if (now - loggedAt < REFUSAL_LOG_INTERVAL_MS) return;
    loggedAt = now;
    limits.log.warn(
      { address, open, refused, max_connections: limits.total, max_per_address: limits.perAddress },
      `connections refused: ${why}`,
    );
    refused = 0;
  };

  // After Node's own listener, which has only attached its parser: a socket destroyed here is
  // never read, and Node forgets it when it closes.
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const mine = perAddress.get(address) ?? 0;
    if (open >= limits.total) return refuse(socket, address, 'MAX_CONNECTIONS reached');
    if (limits.perAddress > 0 && mine >= limits.perAddress)
      return refuse(socket, address, 'MAX_CONNECTIONS_PER_ADDRESS reached for this address');
    open++;
    perAddress.set(address, mine + 1);
    socket.once('close', () => {
      open--;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  });
}

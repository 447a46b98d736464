import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startApp, type TestApp } from './support/app.js';
import { eventually } from './support/wait.js';

/** A connection that sent the start of a request and then nothing: the slow-headers attack. */
interface Held {
  socket: Socket;
  /** when the server closed it, or null while it is open */
  closedAt: number | null;
}

describe('connection caps on a server listening on a port', () => {
  let t: TestApp;
  let port: number;
  const held: Held[] = [];
  beforeAll(async () => {
    t = await startApp({ env: { MAX_CONNECTIONS: '30', MAX_CONNECTIONS_PER_ADDRESS: '10' } });
    port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
  });
  afterAll(async () => {
    for (const h of held) h.socket.destroy();
    await t.close();
  });

  /** Opens a connection from `from` (a loopback address) and sends half a request head. */
  const hold = (from: string) =>
    new Promise<Held>((ok, fail) => {
      const h: Held = { socket: connect({ port, host: '127.0.0.1', localAddress: from }), closedAt: null };
      h.socket.on('error', () => {});
      h.socket.on('close', () => (h.closedAt = Date.now()));
      h.socket.once('connect', () => {
        h.socket.write('GET /v1/sessions HTTP/1.1\r\nHost: x\r\nX-Slow: ');
        held.push(h);
        ok(h);
      });
      h.socket.once('error', fail);
    });

  /** GET /health from `from`: the status, or the transport error's code. */
  const health = (from: string) =>
    new Promise<number | string>((ok) => {
      const req = get(
        { port, host: '127.0.0.1', localAddress: from, path: '/health', agent: false },
        (res) => {
          res.resume();
          res.on('end', () => ok(res.statusCode!));
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => ok(err.code ?? err.message));
    });

  it('refuses at once the connections of one address past MAX_CONNECTIONS_PER_ADDRESS, while other addresses are answered', async () => {
    const opened = Date.now();
    const attack = await Promise.all(Array.from({ length: 25 }, () => hold('127.0.0.2')));
    // Ten are kept (they wait for the rest of their headers); the fifteen beyond the cap are closed promptly.
    await eventually(
      () => attack.filter((h) => h.closedAt !== null).length >= 15,
      5_000,
      'the excess to be closed',
    );
    const closed = attack.filter((h) => h.closedAt !== null);
    expect(closed).toHaveLength(15);
    for (const h of closed) expect(h.closedAt! - opened).toBeLessThan(5_000);
    // The attacker cannot open one more, even for a complete request.
    expect(await health('127.0.0.2')).not.toBe(200);
    // Everyone else is served.
    expect(await health('127.0.0.1')).toBe(200);
    expect(await health('127.0.0.3')).toBe(200);
  });

  it('refuses connections past MAX_CONNECTIONS in all, then serves again once they are released', async () => {
    // 10 held from 127.0.0.2 already; 10 more from each of two other addresses reach 30.
    await Promise.all(Array.from({ length: 10 }, () => hold('127.0.0.4')));
    await Promise.all(Array.from({ length: 10 }, () => hold('127.0.0.5')));
    expect(held.filter((h) => h.closedAt === null)).toHaveLength(30);
    expect(await health('127.0.0.6')).not.toBe(200);

    for (const h of held) h.socket.destroy();
    // Alive, and answering everyone, the attacker included, once the connections are gone.
    await eventually(async () => (await health('127.0.0.6')) === 200, 5_000, 'an answer after release');
    expect(await health('127.0.0.2')).toBe(200);
  });

  it('reads both caps from the environment, with 0 turning the per-address cap off, and refuses bad values naming the variable', () => {
    const c = loadConfig({ DATA_DIR: t.dataDir });
    expect(c.maxConnections).toBe(10_000);
    expect(c.maxConnectionsPerAddress).toBe(256);
    expect(
      loadConfig({ DATA_DIR: t.dataDir, MAX_CONNECTIONS_PER_ADDRESS: '0' }).maxConnectionsPerAddress,
    ).toBe(0);
    expect(() => loadConfig({ DATA_DIR: t.dataDir, MAX_CONNECTIONS: '0' })).toThrowError(
      /^MAX_CONNECTIONS must be between 1/,
    );
    expect(() => loadConfig({ DATA_DIR: t.dataDir, MAX_CONNECTIONS_PER_ADDRESS: 'many' })).toThrowError(
      /^MAX_CONNECTIONS_PER_ADDRESS must be a whole number/,
    );
  });
});

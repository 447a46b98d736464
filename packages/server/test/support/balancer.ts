import { request } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';

/** A TCP load balancer in front of server processes, as HAProxy in TCP mode would be. */
export interface Balancer {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** the backend port each client connection was sent to, in order of arrival */
  routed: number[];
  stop(): Promise<void>;
}

/** Whether GET /ready on the port answers 200 (not in time, or not at all, counts as no). */
function ready(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((done) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/ready', agent: false, timeout: timeoutMs },
      (res) => {
        res.resume();
        done(res.statusCode === 200);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => done(false));
    req.end();
  });
}

/**
 * Listens on 127.0.0.1 (an ephemeral port) and sends each new client connection to the first
 * backend, in the order of `ports`, whose `/ready` answered 200 at its last check (every
 * `checkEveryMs`); with none ready the connection is dropped. A connection stays on the backend
 * it was sent to for its whole life: moving participants is the servers' business, not the
 * balancer's, exactly as with a TCP balancer in production.
 */
export async function startBalancer(ports: number[], checkEveryMs = 50): Promise<Balancer> {
  const up = new Map<number, boolean>(ports.map((p) => [p, false]));
  const checking = new Set<number>();
  const check = async (port: number) => {
    // One check at a time per backend: a slow answer is not stacked up behind.
    if (checking.has(port)) return;
    checking.add(port);
    try {
      up.set(port, await ready(port, 1000));
    } finally {
      checking.delete(port);
    }
  };
  // The first verdicts before the first client: a balancer that just started knows its backends.
  await Promise.all(ports.map(check));
  const timer = setInterval(() => ports.forEach((p) => void check(p)), checkEveryMs);

  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  const routed: number[] = [];
  const server = createServer((client) => {
    track(client);
    const port = ports.find((p) => up.get(p));
    if (port === undefined) {
      client.destroy();
      return;
    }
    routed.push(port);
    const backend = connect(port, '127.0.0.1');
    track(backend);
    // Either side failing cuts the other, either side closing closes the other once what it sent
    // is through: the client sees what it would see directly.
    client.on('error', () => backend.destroy());
    backend.on('error', () => client.destroy());
    client.on('close', () => backend.end());
    backend.on('close', () => client.end());
    client.pipe(backend);
    backend.pipe(client);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    routed,
    async stop() {
      clearInterval(timer);
      for (const s of sockets) s.destroy();
      await new Promise((ok) => server.close(ok));
    },
  };
}

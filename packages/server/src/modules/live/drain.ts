import { CLOSE } from '@vss/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { LiveConnection } from './connection.js';
import { sendControl } from './delivery.js';

/** Counts the publishes under way (taken, not yet acknowledged or refused); wakes who waits for none. */
export class InFlight {
  private count = 0;
  private waiting: Array<() => void> = [];

  enter(): void {
    this.count += 1;
  }

  leave(): void {
    this.count -= 1;
    if (this.count === 0) for (const wake of this.waiting.splice(0)) wake();
  }

  /** Resolves once none is under way, or at `deadline` (epoch ms). */
  settled(deadline: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      setTimeout(resolve, Math.max(0, deadline - Date.now())).unref();
    });
  }
}

/**
 * Sends a draining server's participants away: each is told to connect again (`control`
 * `reconnect`), leaves (the others are told, its tracks end), and its socket closes with 1001.
 * What is left at `deadline` (epoch ms) is closed by the hub's close().
 */
export async function sendAway(
  conns: LiveConnection[],
  leave: (conn: LiveConnection) => Promise<void>,
  deadline: number,
  log: FastifyBaseLogger,
): Promise<void> {
  for (const conn of conns)
    sendControl(conn, 'reconnect', conn.userId, {
      reason: 'draining',
      message: 'this server is restarting: connect again to go on',
    });
  for (const conn of conns) {
    if (Date.now() >= deadline) return;
    await leave(conn).catch((err) => log.warn({ err }, 'leave failed while draining'));
    conn.close(CLOSE.GOING_AWAY, 'server restarting: connect again');
  }
}

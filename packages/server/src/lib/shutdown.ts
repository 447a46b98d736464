import type { FastifyBaseLogger } from 'fastify';

/**
 * Stops the process gracefully on SIGTERM and SIGINT: `drain` (given the deadline, epoch ms), then
 * `close`, then exit 0; exit 1 when they fail or when `timeoutS` passes first. After SIGTERM,
 * `close` waits until `graceMs` have passed since the signal, however quick the drain: a load
 * balancer polling readiness must see the refusal before the port closes, or it sends requests to
 * a closed port until its next poll. SIGINT comes from a person at a terminal, whom no balancer
 * watches: no grace. A second SIGTERM or SIGINT stops at once (exit 1).
 */
export function stopGracefully(opts: {
  log: FastifyBaseLogger;
  timeoutS: number;
  /** DRAIN_GRACE_MS: after SIGTERM, the least time before `close` (0: none; a worker has no port) */
  graceMs?: number;
  drain: (deadline: number) => Promise<void>;
  close: () => Promise<void>;
}): void {
  const { log } = opts;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: stopping now, without waiting for the drain');
      process.exit(1);
    }
    stopping = true;
    const timeoutMs = opts.timeoutS * 1000;
    log.info({ signal, timeout_s: opts.timeoutS }, 'draining: taking no new work, then stopping');
    setTimeout(() => {
      log.error(
        { timeout_s: opts.timeoutS },
        'the drain did not finish within DRAIN_TIMEOUT_S: stopping now',
      );
      process.exit(1);
    }, timeoutMs).unref();
    const graceUntil = Date.now() + (signal === 'SIGTERM' ? (opts.graceMs ?? 0) : 0);
    try {
      await opts.drain(Date.now() + timeoutMs);
      const rest = graceUntil - Date.now();
      if (rest > 0) await new Promise((r) => setTimeout(r, rest));
      await opts.close();
      log.info('stopped');
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

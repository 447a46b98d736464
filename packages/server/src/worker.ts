import { ConfigError, loadConfig } from './config.js';
import { stopGracefully } from './lib/shutdown.js';
import { openRuntime } from './runtime.js';

/**
 * A job worker without the HTTP server (`npm run worker`): runs webhook deliveries, recording
 * finalisation and exports from the shared database. Servers started with `JOB_WORKER=false`
 * leave their jobs to it; with the default, every server process is also a worker.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig({ ...process.env, JOB_WORKER: 'true' });
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`vss worker: configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const runtime = await openRuntime(config);
  runtime.logger.info({ engine: runtime.database.engine }, 'vss worker running jobs');
  // Why: the job queue's timers do not hold a process open (a server is held by its port), and a
  // worker with nothing to do yet has nothing else; it runs until it is told to stop.
  const alive = setInterval(() => {}, 2 ** 30);
  // Jobs under way finish, or are released to another worker, within DRAIN_TIMEOUT_S.
  stopGracefully({
    log: runtime.logger,
    timeoutS: config.drainTimeoutS,
    drain: (deadline) => runtime.drain(deadline),
    close: async () => {
      clearInterval(alive);
      await runtime.close();
    },
  });
}

main().catch((err: Error) => {
  console.error(`vss worker: failed to start: ${err.message}`);
  process.exit(1);
});

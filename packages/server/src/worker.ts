import { ConfigError, loadConfig } from './config.js';
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
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, 'worker shutting down');
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    try {
      await runtime.close();
      clearTimeout(force);
      process.exit(0);
    } catch (err) {
      runtime.logger.error({ err }, 'worker shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: Error) => {
  console.error(`vss worker: failed to start: ${err.message}`);
  process.exit(1);
});

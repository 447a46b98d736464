import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openRuntime } from './runtime.js';

/** Starts the server: configuration, storage, the app, listen; stops cleanly on SIGTERM and SIGINT. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`vss: configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const runtime = await openRuntime(config);
  const app = await buildApp(runtime);
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  app.log.info(
    { url: config.publicBaseUrl, port, engine: runtime.database.engine, redis: Boolean(config.redisUrl) },
    `vss listening on ${config.publicBaseUrl} (docs: ${config.publicBaseUrl}/docs)`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    try {
      await app.close();
      await runtime.close();
      clearTimeout(force);
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: Error) => {
  console.error(`vss: failed to start: ${err.message}`);
  process.exit(1);
});

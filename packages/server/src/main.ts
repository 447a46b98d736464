import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { stopGracefully } from './lib/shutdown.js';
import { openRuntime } from './runtime.js';

/** Starts the server: configuration, storage, the app, listen; drains and stops on SIGTERM and SIGINT. */
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

  if (runtime.metricsPort !== null)
    app.log.info(
      { port: runtime.metricsPort },
      `metrics on http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${runtime.metricsPort}/metrics`,
    );

  // Readiness fails at once, live participants are sent to another server, jobs under way finish
  // or are released, then, DRAIN_GRACE_MS after SIGTERM at the earliest, the HTTP server closes:
  // all within DRAIN_TIMEOUT_S.
  stopGracefully({
    log: app.log,
    timeoutS: config.drainTimeoutS,
    graceMs: config.drainGraceMs,
    drain: (deadline) => runtime.drain(deadline),
    close: async () => {
      await app.close();
      await runtime.close();
    },
  });
}

main().catch((err: Error) => {
  console.error(`vss: failed to start: ${err.message}`);
  process.exit(1);
});

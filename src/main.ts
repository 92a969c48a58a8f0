// Starts the service: configuration, database (migrated), HTTP server, workers; on SIGTERM or
// SIGINT it stops taking requests, lets in-flight ones finish, then stops workers and the store.
import { ConfigError, loadConfig } from './config.ts';
import { buildApp } from './app.ts';
import { openContext } from './runtime.ts';
import { startWorkers, stopWorkers } from './workers.ts';
import { lockDataDir } from './embedded-lock.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`caja: configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  let release = () => {};
  try {
    if (!config.databaseUrl) release = lockDataDir(config.dataDir);
  } catch (err) {
    console.error(`caja: ${(err as Error).message}`);
    process.exit(1);
  }
  const ctx = await openContext(config);
  const app = await buildApp(ctx);
  const workers = config.workers ? startWorkers(ctx) : [];
  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { env: config.env, database: ctx.db.kind, public_base_url: config.publicBaseUrl, data_dir: config.databaseUrl ? undefined : config.dataDir },
    process.env.CAJA_ADMIN_TOKEN ? 'caja ready' : `caja ready; admin token in ${config.dataDir}/admin.token`,
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      app.log.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    await app.close();
    await stopWorkers(workers);
    await ctx.db.close();
    release();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error('caja: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});

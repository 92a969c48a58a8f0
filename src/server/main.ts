// Starts the service: configuration, database (migrated), HTTP server, workers; on SIGTERM or
// SIGINT it stops taking requests, lets in-flight ones finish, then stops workers and the store.
// With CAJA_PROCESSES > 1 this process becomes a supervisor that forks that many servers sharing
// the port (node:cluster), forwards the stop signal to them and replaces one that dies.
import cluster from 'node:cluster';
import v8 from 'node:v8';
import { checkServerConfig, ConfigError, loadConfig, type Config } from '../config/config.ts';
import { checkKindIntervals } from '../connectors/registry.ts';
import { buildApp } from './app.ts';
import { listenAdmin } from '../api/admin/listener.ts';
import { openContext } from './runtime.ts';
import { startWorkers, stopWorkers } from './workers.ts';
import { lockDataDir } from './embedded-lock.ts';
import { processCount } from './processes.ts';

async function main(): Promise<void> {
  let config;
  let processes;
  try {
    config = loadConfig();
    checkServerConfig(config);
    // Each connector kind's intervals (CAJA_PIX_POLL_SECONDS, …), checked as the rest of the configuration.
    checkKindIntervals(config);
    processes = processCount(process.env, config);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`caja: configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  if (processes > 1 && cluster.isPrimary) return supervise(config, processes);
  // With memory to spare V8 lets the heap grow to up to four times what is live before a major
  // collection: RSS after a load of deposit creations measured 190-330 MB from run to run with
  // about 60 MB live. Growth of 100 % (twice the live heap) kept it at ≈230 MB with no measured
  // loss of throughput. Read at each collection, so setting it now is early enough.
  if (config.heapGrowingPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
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
  const adminServer = await listenAdmin(app, config);
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
    adminServer?.close();
    await app.close();
    // Handlers of requests whose clients went away are not waited for by app.close().
    await app.handlersSettled();
    await stopWorkers(workers);
    await ctx.db.close();
    release();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * The supervisor of CAJA_PROCESSES servers. It opens no database and serves nothing itself.
 * Migrations run in each server under their advisory lock, so the first to start applies them.
 */
function supervise(config: Config, processes: number): void {
  let stopping = false;
  const ready = new Set<number>();
  const fork = () => {
    const w = cluster.fork();
    w.on('listening', () => ready.add(w.id));
  };
  cluster.on('exit', (worker, code, signal) => {
    const wasReady = ready.delete(worker.id);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    // A server that never got to listen failed to start (bad database URL, port taken): starting
    // it again would fail the same way, so everything stops with its error on stderr.
    if (!wasReady) {
      console.error(`caja: server process ${worker.process.pid} failed to start (exit ${code ?? signal}); stopping`);
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      process.exitCode = 1;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(1);
      return;
    }
    // A crash loses nothing committed (every acknowledged write is in PostgreSQL, and jobs it had
    // claimed are claimed again when their lease runs out): a replacement takes its place.
    console.error(`caja: server process ${worker.process.pid} exited (${code ?? signal}); starting another`);
    fork();
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    // Each server finishes its in-flight requests, stops its workers (releasing claimed jobs) and
    // exits; the supervisor waits for all of them, within the shutdown limit plus a margin.
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
    setTimeout(() => {
      console.error('caja: server processes did not stop in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + 2000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  for (let i = 0; i < processes; i++) fork();
}

main().catch((err) => {
  console.error('caja: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});

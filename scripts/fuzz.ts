// Long hostile-client runs: `npm run fuzz -- --requests 100000 [--seed N] [--concurrency 8]`.
// Starts a staging server on PostgreSQL when DATABASE_URL is set (embedded PGlite otherwise),
// sends correctly signed requests with hostile values over every way in (test/fuzz/harness.ts),
// prints the figures and exits 1 when any request got a 5xx, a hidden streamline 500, or left
// the service unhealthy.
import { parseArgs } from 'node:util';
import { postgresUrl, startTestServer } from '../test/helpers/server.ts';
import { makeFixtures, runFuzz } from '../test/fuzz/harness.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    seed: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
  },
});
const count = Number(values.requests);
const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 2 ** 31;
const backend = postgresUrl() ? 'pg' : 'pglite';
const s = await startTestServer(backend);
try {
  const fx = await makeFixtures(s.url);
  console.log(`fuzz: ${count} requests, seed ${seed}, ${backend}, concurrency ${values.concurrency}`);
  const report = await runFuzz(s.url, fx, {
    count,
    seed,
    concurrency: Number(values.concurrency),
    onProgress: (r) => {
      if (r.sent % 10000 === 0) console.log(`  ${r.sent} sent, ${r.serverErrors} failures, ${((Date.now() / 1000) | 0)}`);
    },
  });
  console.log(JSON.stringify({ sent: report.sent, serverErrors: report.serverErrors, seconds: report.seconds, byStatus: report.byStatus }, null, 2));
  for (const f of report.failures) console.log(`FAIL ${f}`);
  process.exitCode = report.failures.length ? 1 : 0;
} finally {
  await s.close();
}

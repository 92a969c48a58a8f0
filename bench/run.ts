// `npm run bench`: every benchmark in one run. Each reports its figures with a baseline measured
// in the same run (the machine is shared and noisy, so only ratios compare across runs).
// `npm run bench -- deposits` runs one.
import { buildServer } from '../test/helpers/server-entry.ts';

const suites: Record<string, () => Promise<Record<string, unknown>>> = {
  deposits: async () => (await import('./deposits.ts')).benchDeposits(),
  cashouts: async () => (await import('./cashouts.ts')).benchCashouts(),
  notifications: async () => (await import('./notifications.ts')).benchNotifications(),
  validation: async () => (await import('./validation.ts')).benchValidation(),
  streamline: async () => (await import('./streamline.ts')).benchStreamline(),
  reconciliation: async () => (await import('./reconciliation.ts')).benchReconciliation(),
  scale: async () => (await import('./scale.ts')).benchScale(),
  'scale-build': async () => (await import('./scale.ts')).benchScaleBuild(),
  'scale-measure': async () => (await import('./scale.ts')).benchScaleMeasure(),
  hot: async () => (await import('./hot-accounts.ts')).benchHotAccounts(),
  panel: async () => (await import('./panel-backlog.ts')).benchPanel(),
};

// The servers the suites start run the compiled build, made now from the sources as they are.
buildServer();
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const results: Record<string, unknown> = {};
for (const [name, run] of Object.entries(suites)) {
  // The scale benches grow or read databases of millions of deposits: only when asked for by name.
  if (wanted.length ? !wanted.includes(name) : name.startsWith('scale')) continue;
  console.log(`\n=== ${name} ===`);
  results[name] = await run();
}
console.log('\n=== summary (JSON) ===');
console.log(JSON.stringify(results, null, 2));
process.exit(0);

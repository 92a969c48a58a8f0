// Counts leaf test results and writes them to the file named by CAJA_TEST_SUMMARY, so the
// runner can print the plain "N passed, N failed" closing line that CI reads.
import { writeFileSync } from 'node:fs';

export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const d = event.data;
    // Suites report too; count only tests (a failing suite hook still counts as a failure).
    if (d.details?.type === 'suite' && event.type === 'test:pass') continue;
    if (d.skip || d.todo) skipped++;
    else if (event.type === 'test:pass') passed++;
    else if (d.details?.type !== 'suite' || d.details?.error?.failureType !== 'subtestsFailed') failed++;
  }
  if (process.env.CAJA_TEST_SUMMARY) {
    writeFileSync(process.env.CAJA_TEST_SUMMARY, JSON.stringify({ passed, failed, skipped }));
  }
  yield '';
}

// Loaded into each test file's process by scripts/run-tests.mjs: on exit appends the file's wall
// time since its process started, when it ended (epoch ms) and its CPU time, its own and its
// finished child processes' (servers, the CLI, Chromium), to the file CAJA_TEST_TIMINGS names.
// The runner starts the longest files first by these walls, and prints them with TEST_TIMINGS=1.
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const out = process.env.CAJA_TEST_TIMINGS;
const built = process.env.CAJA_TEST_BUILD;
const file = process.argv[1];
if (out && built && file?.endsWith('.test.mjs')) {
  process.on('exit', () => {
    // utime, stime, cutime, cstime: fields 14-17 of /proc/self/stat, in clock ticks (100 a second).
    let cpu = {};
    try {
      const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
      cpu = { cpu: (Number(f[11]) + Number(f[12])) / 100, childrenCpu: (Number(f[13]) + Number(f[14])) / 100 };
    } catch {
      const u = process.cpuUsage();
      cpu = { cpu: (u.user + u.system) / 1e6 };
    }
    const wall = performance.now() / 1000;
    appendFileSync(out, `${JSON.stringify({ file: relative(built, file).replace(/\.mjs$/, '.ts'), end: Date.now(), wall, ...cpu, maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`);
  });
}

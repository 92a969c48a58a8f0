// Top self-time entries of V8 CPU profiles (`node --cpu-prof`), the figures the issue asks for
// before and after a change. Several files (one per server process) are added together.
// `node --import tsx bench/cpu-top.ts [--top 10] <file.cpuprofile>...`
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 10;

const selfUs = new Map<string, number>();
let totalUs = 0;
for (const file of args) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    const f = byId.get(id)!.callFrame;
    const where = f.url ? `${relative(process.cwd(), f.url.replace(/^file:\/\//, ''))}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
    selfUs.set(key, (selfUs.get(key) ?? 0) + dt);
    totalUs += dt;
  });
}
const rows = [...selfUs.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
console.log(`total ${(totalUs / 1e6).toFixed(1)} s sampled`);
for (const [key, us] of rows) console.log(`${((us / totalUs) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`);

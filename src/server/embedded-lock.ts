// The embedded database is one process's files: a second process opening the same DATA_DIR
// would corrupt it. The server and the CLI hold this pid lock while they use it.
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Returns a release function, or throws when another live process holds the lock. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'caja.pid');
  if (existsSync(path)) {
    const pid = Number(readFileSync(path, 'utf8').trim());
    if (pid && pid !== process.pid && alive(pid)) {
      throw new Error(
        `the embedded database in ${dataDir} is in use by process ${pid} (a running caja); one process at a time can open it.\n` +
          `  - stop that process (Ctrl-C where it runs, or kill ${pid}) and run this command again; or\n` +
          `  - leave it running and use its HTTP API: the admin API for operators (Authorization: Bearer $(cat ${dataDir}/admin.token),\n` +
          `    e.g. POST /admin/merchants), or the HTTP commands of this CLI (caja listen, trigger, deposits, sign: see caja help); or\n` +
          `  - run caja on PostgreSQL (DATABASE_URL), where the server and the CLI share the database.`,
      );
    }
  }
  writeFileSync(path, String(process.pid));
  return () => rmSync(path, { force: true });
}

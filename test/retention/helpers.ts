// Reading a retention archive directory the way an operator would: its files and their rows.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ARCHIVED_TABLES, readArchiveFile, tableOfFile } from '../../src/retention/archive.ts';

/** Every archive file under dir (not the partial ones), relative paths sorted. */
export function archiveFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        if (name !== '.partial') walk(p);
      } else out.push(relative(dir, p));
    }
  };
  try {
    walk(dir);
  } catch {
    return [];
  }
  return out.sort();
}

/** The archive's rows per table, sorted by id. */
export async function archivedRows(dir: string): Promise<Record<string, Record<string, unknown>[]>> {
  const out: Record<string, Record<string, unknown>[]> = Object.fromEntries(ARCHIVED_TABLES.map((t) => [t, []]));
  for (const f of archiveFiles(dir)) out[tableOfFile(f)]!.push(...(await readArchiveFile(join(dir, f))));
  for (const rows of Object.values(out)) rows.sort((a, b) => Number(a.id) - Number(b.id));
  return out;
}


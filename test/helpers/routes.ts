// The routes a server registered, read from Fastify's route tree: the fuzz test checks each has a
// harness entry, the admin audit test that each admin write route is audited.

/** Every route of a printRoutes({ commonPrefix: false }) tree, as "METHOD /path/:param" (HEAD left out). */
export function registeredRoutes(tree: string): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│├└─\s]*)(\S.*?) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    for (const method of m[3]!.split(', ')) if (method !== 'HEAD') out.push(`${method} ${stack.join('')}`);
  }
  return out;
}

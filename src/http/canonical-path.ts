// The one canonical form of a request path: the path exactly as the router matches it (src/server/app.ts:
// caseSensitive false, ignoreTrailingSlash, ignoreDuplicateSlashes; find-my-way's decoding).
// Anything that decides by path (the admin port, replay) judges this form, never the raw target,
// so a spelling the router accepts (`//admin`, `/%61dmin`, `/ADMIN/`, `http://host/admin`) is
// judged as the route it reaches (Fastify 5 default: `;` is not a delimiter). The router
// normalises every path this way; nothing is refused for its spelling alone (a client whose base
// URL ends in `/` sends `//v3/...`).

/**
 * The canonical path of a request target, or null when the router cannot read it (a malformed
 * percent-encoding, an absolute form that is not http(s) with a host): the router answers those
 * 400 without reaching a route. Steps, in the router's order:
 * - absolute form (`http://host/p?q`) → its path;
 * - cut at the first `?` or `#` (the query is not part of the path);
 * - percent-decode everything but the reserved characters (`%2F` stays `%2F`, `%25` stays `%25`);
 * - collapse runs of `/`, drop one trailing `/`, lower-case.
 */
export function canonicalPath(target: string): string | null {
  let path = target;
  if (!path.startsWith('/')) {
    const absolute = /^(https?):\/\/[^/?#]+/i.exec(path);
    if (!absolute) return null;
    path = path.slice(absolute[0].length);
    if (path.includes('#')) return null;
    if (!path.startsWith('/')) path = '/' + path.replace(/^[^?]*/, '');
  }
  const end = path.search(/[?#]/);
  if (end !== -1) path = path.slice(0, end);
  if (path.includes('%')) {
    try {
      // decodeURI leaves the reserved characters (/ ? # : @ & = + $ , ;) encoded, as the router
      // does; %25 is protected so that "%2561" stays "%2561" rather than becoming "%61".
      path = decodeURI(path.replace(/%25/g, '%2525'));
    } catch {
      return null;
    }
  }
  path = path.replace(/\/{2,}/g, '/');
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path.toLowerCase();
}

/** The first segment of the canonical path, '' for `/`, null when the target is unreadable. */
export function firstSegment(target: string): string | null {
  const path = canonicalPath(target);
  return path === null ? null : path.split('/')[1] ?? '';
}

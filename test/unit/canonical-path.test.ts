// canonicalPath is the path the router matches: for any spelling of a route's path, the router
// finds that route exactly when canonicalPath gives the route's path (router options of src/server/app.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import FindMyWay from 'find-my-way';
import { canonicalPath, firstSegment } from '../../src/http/canonical-path.ts';
import { isAdminRequest } from '../../src/api/admin/listener.ts';

const ROUTES = ['/admin/merchants', '/admin/merchants/:id', '/metrics', '/health', '/v3/me', '/v3/refunds', '/api_curl/streamline/NewInvoice'];

function router() {
  const r = FindMyWay({ caseSensitive: false, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
  for (const route of ROUTES) r.on('GET', route, () => {}, { route });
  return r;
}

test('canonicalPath reads the spellings of the security finding as the router does', () => {
  assert.equal(canonicalPath('//admin/merchants'), '/admin/merchants');
  assert.equal(canonicalPath('/%61dmin/merchants/1'), '/admin/merchants/1');
  assert.equal(canonicalPath('//metrics'), '/metrics');
  assert.equal(canonicalPath('///metrics'), '/metrics');
  assert.equal(canonicalPath('/%6detrics'), '/metrics');
  assert.equal(canonicalPath('/%6Detrics/?x=1'), '/metrics');
  assert.equal(canonicalPath('/METRICS#x'), '/metrics');
  assert.equal(canonicalPath('http://localhost//Admin/merchants?x'), '/admin/merchants');
  assert.equal(canonicalPath('HTTPS://h'), '/');
  assert.equal(canonicalPath('/%2561dmin'), '/%2561dmin', '%25 is a percent sign, not the start of an escape');
  assert.equal(canonicalPath('/admin%2Fmerchants'), '/admin%2fmerchants', 'an encoded slash is not a separator');
  assert.equal(canonicalPath('/%E0%A4%A'), null);
  assert.equal(canonicalPath('ftp://h/admin'), null);
  assert.equal(firstSegment('//%61DMIN//x'), 'admin');
  assert.equal(firstSegment('/'), '');
});

test('isAdminRequest: by the canonical path, or by the route the router matched', () => {
  for (const url of ['//admin/merchants', '/%61dmin/merchants/1', '//metrics', '///metrics', '/%6detrics', 'http://h/metrics']) assert.equal(isAdminRequest(url, undefined), true, url);
  for (const url of ['/health', '/administrator', '/metricsx', '/v3/admin', '/%2561dmin']) assert.equal(isAdminRequest(url, undefined), false, url);
  assert.equal(isAdminRequest('/odd', '/admin/merchants/:id'), true);
});

// Spellings of a path: each character in either case or percent-encoded (either hex case),
// separators doubled, a trailing slash, a query or a fragment, the absolute form.
const spelling = (path: string) =>
  fc
    .tuple(
      fc.array(fc.tuple(fc.constantFrom('keep', 'upper', 'encode', 'encodeLower', 'double'), fc.boolean()), { minLength: path.length, maxLength: path.length }),
      fc.constantFrom('', '/', '//', '?a=/admin', '#frag', '/?x', '%2F', '%25', '.'),
      fc.constantFrom('', 'http://localhost', 'https://h:1', 'HTTP://x'),
    )
    .map(([marks, tail, origin]) => {
      let out = '';
      [...path].forEach((ch, i) => {
        const [mark] = marks[i];
        const hex = ch.charCodeAt(0).toString(16).padStart(2, '0');
        if (ch === '/') out += mark === 'double' ? '//' : '/';
        else if (ch === ':' ) out += ch;
        else if (mark === 'upper') out += ch.toUpperCase();
        else if (mark === 'encode') out += `%${hex.toUpperCase()}`;
        else if (mark === 'encodeLower') out += `%${hex}`;
        else out += ch;
      });
      return origin + out + tail;
    });

test('for any spelling, the router matches a route exactly when canonicalPath names it', () => {
  const r = router();
  const statics = ROUTES.filter((route) => !route.includes(':')).map((route) => route.toLowerCase());
  fc.assert(
    fc.property(fc.constantFrom(...ROUTES.filter((route) => !route.includes(':')), '/admin/merchants/7', '/v3/deposits').chain(spelling), (target) => {
      const found = r.find('GET', target) as { store: { route: string }; params: Record<string, string> } | null;
      const canonical = canonicalPath(target);
      if (found) {
        // A parameter's value is decoded further by the router (%25 → %); the path up to it is not.
        const route = found.store.route.toLowerCase();
        if (route.includes(':')) assert.ok(canonical?.startsWith(route.slice(0, route.indexOf(':'))), `${target}: the router matched ${route}`);
        else assert.equal(canonical, route, `${target}: the router matched ${route}`);
      } else if (canonical !== null) {
        assert.ok(!statics.includes(canonical), `${target}: canonical ${canonical}, yet the router found no route`);
      }
    }),
    { numRuns: 3000 },
  );
});

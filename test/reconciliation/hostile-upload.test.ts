// Statement uploads that tried to stop the server: through the admin API a file built to make the
// old OFX reader backtrack, a camt file nested 1,000 deep or with an unclosed `<?` answer 400 with
// the problem named (they were a 2.4 s block and two 500s); the parse runs in a worker thread
// with a deadline (a file outlasting it is refused, the worker replaced); and the console's upload
// answers an unauthenticated or cross-site post before reading its body (it buffered 64 MB first).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { ADMIN_TOKEN, backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { camt053, type Day, ofx } from '../helpers/statements.ts';
import { ParseLimitError, parseStatementOffThread } from '../../src/reconciliation/off-thread.ts';
import { parseStatement } from '../../src/reconciliation/formats.ts';
import { StatementFormatError } from '../../src/reconciliation/statement.ts';
import { makeOperator, signedIn } from '../ops/helpers.ts';

const day: Day = {
  statementId: 'STMT-HOSTILE', account: { iban: 'BR1800360305000010009795493C1' }, currency: 'BRL', date: '2026-11-25', opening: '1000.00',
  movements: [{ amount: '10.00', direction: 'credit', date: '2026-11-25', bankId: 'H1' }],
};
const ofxDay = { ...day, bankId: '341', branch: '4417', accountId: '55' };

test('the parse runs in a worker: same result as in-process, format errors come back as such, a deadline stops it', async () => {
  const file = ofx(ofxDay);
  assert.deepEqual(await parseStatementOffThread('ofx', Buffer.from(file)), parseStatement('ofx', file));
  await assert.rejects(parseStatementOffThread('ofx', 'hello'), (e: unknown) => e instanceof StatementFormatError && /not an OFX file/.test(e.problem));
  const big = ofx({ ...ofxDay, movements: Array.from({ length: 20_000 }, (_, i) => ({ amount: '1.00', direction: 'credit' as const, date: '2026-11-25', bankId: `F${i}` })) });
  await assert.rejects(parseStatementOffThread('ofx', big, 1), (e: unknown) => e instanceof ParseLimitError && /took too long to parse/.test(e.message));
  // The next file gets a new worker.
  assert.equal((await parseStatementOffThread('ofx', file)).entries.length, 1);
});

/** Sends the headers of a POST declaring `length` bytes and only `sent` of them; the status line answered, or null after `ms`. */
function partialPost(url: string, path: string, headers: Record<string, string>, length: number, sent: Buffer, ms = 5000): Promise<string | null> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const sock = connect(Number(u.port), u.hostname);
    let got = '';
    const timer = setTimeout(() => { sock.destroy(); resolve(null); }, ms);
    sock.on('data', (d) => {
      got += d.toString('latin1');
      const line = got.split('\r\n')[0];
      if (got.includes('\r\n')) { clearTimeout(timer); sock.destroy(); resolve(line!); }
    });
    sock.on('error', () => { clearTimeout(timer); resolve(got ? got.split('\r\n')[0]! : 'socket error'); });
    const head = Object.entries({ host: u.host, 'content-length': String(length), ...headers }).map(([k, v]) => `${k}: ${v}`).join('\r\n');
    sock.write(`POST ${path} HTTP/1.1\r\n${head}\r\n\r\n`);
    sock.write(sent);
  });
}

for (const backend of backends()) {
  describe(`hostile statement uploads (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(backend);
    });
    after(() => s.close());

    const upload = async (body: string, contentType: string) => {
      const r = await fetch(`${s.url}/admin/reconciliation/statements`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType }, body });
      return { status: r.status, text: await r.text() };
    };

    test('admin API: pathological OFX and camt answer 400 naming the problem, quickly, never 500', async () => {
      const xml = camt053(day);
      const cases: [string, string, RegExp][] = [
        [`OFXHEADER:100\n<OFX><${'A'.repeat(30)}>x`, 'application/x-ofx', /OFX/],
        [`OFXHEADER:100\n<OFX><SIGNONMSGSRSV1><${'A'.repeat(5000)}>v</SIGNONMSGSRSV1></OFX>`, 'application/x-ofx', /tag name longer than/],
        [xml.replace('<Stmt>', `<Stmt>${'<X>'.repeat(1000)}${'</X>'.repeat(1000)}`), 'application/xml', /nested deeper than/],
        [xml.replace('<Stmt>', '<Stmt><?'), 'application/xml', /unclosed processing instruction/],
        [`${xml}<?`, 'application/xml', /unclosed processing instruction/],
      ];
      for (const [body, type, problem] of cases) {
        const t0 = performance.now();
        const r = await upload(body, type);
        assert.equal(r.status, 400, r.text.slice(0, 300));
        assert.match(r.text, problem);
        // Separates a prompt refusal (with the parse worker's start) from a parse stopped by its 30 s deadline.
        assert.ok(performance.now() - t0 < 10_000, `${Math.round(performance.now() - t0)} ms`);
      }
      assert.equal((await upload(ofx(ofxDay), 'application/x-ofx')).status, 201);
    });

    test('console: an upload is answered before its body is read when unauthenticated or cross-site', async () => {
      const length = 60 * 1024 * 1024;
      const first = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="x.xml"\r\n\r\n');
      const noSession = await partialPost(s.url, '/ops/reconciliation/statements', { 'content-type': 'multipart/form-data; boundary=b', origin: s.url }, length, first);
      assert.match(noSession ?? 'no answer while the body was still coming', /^HTTP\/1\.1 303/);
      const op = await makeOperator(s, 'finance');
      const c = await signedIn(s, op);
      const crossSite = await partialPost(s.url, '/ops/reconciliation/statements', { 'content-type': 'multipart/form-data; boundary=b', origin: 'https://evil.example', cookie: c.cookieHeader }, length, first);
      assert.match(crossSite ?? 'no answer while the body was still coming', /^HTTP\/1\.1 403/);
      const support = await signedIn(s, await makeOperator(s, 'support'));
      const wrongRole = await partialPost(s.url, '/ops/reconciliation/statements', { 'content-type': 'multipart/form-data; boundary=b', origin: s.url, cookie: support.cookieHeader }, length, first);
      assert.match(wrongRole ?? 'no answer while the body was still coming', /^HTTP\/1\.1 403/);
      // Signed in, same site, too large: refused as too large (413), the rest never read.
      const tooLarge = await partialPost(s.url, '/ops/reconciliation/statements', { 'content-type': 'multipart/form-data; boundary=b', origin: s.url, cookie: c.cookieHeader }, 200 * 1024 * 1024, first);
      assert.match(tooLarge ?? 'no answer', /^HTTP\/1\.1 413/);
      // The admin API checks its token before the body too (an onRequest hook).
      const api = await partialPost(s.url, '/admin/reconciliation/statements', { 'content-type': 'application/xml', authorization: 'Bearer wrong-token-0123456789' }, length, Buffer.from('<?xml'));
      assert.match(api ?? 'no answer while the body was still coming', /^HTTP\/1\.1 401/);
      // And a real upload from the page still imports.
      const page = await c.get('/ops/reconciliation');
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.html)?.[1];
      assert.ok(csrf);
      const form = new FormData();
      form.set('csrf', csrf);
      form.set('format', 'ofx');
      form.set('file', new Blob([ofx({ ...ofxDay, accountId: '56' })], { type: 'application/x-ofx' }), 'day.ofx');
      const done = await c.request('POST', '/ops/reconciliation/statements', form);
      assert.equal(done.status, 201, done.html.slice(0, 500));
      // A file above fastify's default body limit (1 MB) is read, and refused for what it says.
      const large = new FormData();
      large.set('csrf', csrf);
      large.set('format', 'ofx');
      large.set('file', new Blob([`OFXHEADER:100\n<OFX>${'x'.repeat(3 * 1024 * 1024)}`], { type: 'application/x-ofx' }), 'large.ofx');
      const refused = await c.request('POST', '/ops/reconciliation/statements', large);
      assert.equal(refused.status, 400, refused.html.slice(0, 300));
      assert.match(refused.html, /large\.ofx was not imported/);
      // A wrong token inside the body is still refused.
      form.set('csrf', 'wrong');
      assert.equal((await c.request('POST', '/ops/reconciliation/statements', form)).status, 403);
    });
  });
}

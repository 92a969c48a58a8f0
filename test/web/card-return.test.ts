// Cards through the next-action interface, over HTTP on every backend: in staging a card
// deposit's charge is the staging card kind's redirect to its card page (stored, so a reload goes
// to the same place), the page hands the customer to the return leg, and only the result read back
// from the card network completes the deposit (after a 3-D Secure step, the return leg does it;
// an authorisation without one the network notifies at once): a return that arrives before a
// payment, after a declined card, during an open challenge, with a made-up query, twice, for
// another connector or an unknown deposit changes nothing and is answered with a page (303 or
// 404), never a 500.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';

const BR_PAYER = { first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com', document: cpf('529982247') };

let seq = 0;
const inv = () => `cr-${process.pid}-${++seq}`;

interface Page {
  status: number;
  location: string | null;
  html: string;
}

for (const backend of backends()) {
  describe(`card deposits through redirect and return leg (${backend})`, () => {
    let s: TestServer;
    let v3: V3Client;

    before(async () => {
      s = await startTestServer(backend);
      v3 = V3Client.deposits(s.url, await createMerchant(s.url, 'Loja'));
    });
    after(() => s.close());

    async function card(method: 'VI' | 'MC', amount = '120.00') {
      const r = await v3.post('/v3/deposits', { invoice_id: inv(), country: 'BR', currency: 'BRL', amount, payment_method: method, payer: BR_PAYER });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.checkout_type, 'HOSTED');
      assert.equal(r.body.payment_info ?? null, null, 'a card has no collection details');
      return { id: r.body.deposit_id as number, url: r.body.redirect_url as string, token: (r.body.redirect_url as string).split('/').pop()! };
    }

    async function get(url: string): Promise<Page> {
      const r = await fetch(url, { redirect: 'manual', headers: { 'accept-language': 'en' } });
      return { status: r.status, location: r.headers.get('location'), html: await r.text() };
    }

    async function post(url: string, fields: Record<string, string>): Promise<Page> {
      const r = await fetch(url, {
        method: 'POST', redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.url, 'accept-language': 'en' },
        body: new URLSearchParams(fields).toString(),
      });
      return { status: r.status, location: r.headers.get('location'), html: await r.text() };
    }

    const csrfOf = (html: string) => /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1] ?? '';
    const status = async (id: number) => (await v3.get(`/v3/deposits/${id}`)).body.status as string;
    const row = async (id: number) =>
      (await s.ctx.db.query<{ connector: string | null; connector_reference: string | null; next_action: unknown; card_detail: unknown }>(
        'SELECT connector, connector_reference, next_action, card_detail FROM deposits WHERE id = $1', [id],
      )).rows[0]!;
    const completions = async (id: number) =>
      (await s.ctx.db.query<{ n: number }>(`SELECT count(*)::integer AS n FROM deposit_status_changes WHERE deposit_id = $1 AND to_status = 'COMPLETED'`, [id])).rows[0]!.n;
    const pay = (token: string, html: string, number: string) => post(`${s.url}/checkout/${token}/card`, { csrf: csrfOf(html), number, expiry: '12/30', cvc: '123', holder: 'ANA SILVA' });
    const returnLeg = (token: string) => `${s.url}/connectors/staging-card/return/${token}`;

    test('the checkout redirects to the card page its charge names, the same on every reload; a paid card completes once', async () => {
      const d = await card('VI');
      const first = await get(d.url);
      assert.equal(first.status, 303);
      assert.equal(first.location, `/checkout/${d.token}/card`);
      const charged = await row(d.id);
      assert.equal(charged.connector, 'staging-card');
      assert.match(charged.connector_reference!, /^sc_/);
      assert.deepEqual(charged.next_action, { type: 'redirect', url: `${s.url}/checkout/${d.token}/card`, method: 'GET' });
      assert.equal((await get(d.url)).location, `/checkout/${d.token}/card`, 'a reload goes to the same page');
      assert.equal((await row(d.id)).connector_reference, charged.connector_reference, 'and keeps the same charge');

      const form = await get(`${s.url}/checkout/${d.token}/card`);
      assert.equal(form.status, 200);
      assert.match(form.html, /name="number"/);

      // A return before anything was paid, whatever its query claims: nothing moves.
      const early = await get(`${returnLeg(d.token)}?resultCode=Authorised&status=paid`);
      assert.equal(early.status, 303);
      assert.equal(early.location, `/checkout/${d.token}`);
      assert.equal(await status(d.id), 'PENDING');

      // A declined card: the page says so, and a return after it completes nothing.
      const declined = await pay(d.token, form.html, '4000 0000 0000 0002');
      assert.equal(declined.status, 200);
      assert.match(declined.html, /Your card was declined/);
      assert.equal((await post(returnLeg(d.token), { resultCode: 'Authorised' })).status, 303);
      assert.equal(await status(d.id), 'PENDING');
      // The refusal is shown, once (the return after it counts nothing more); the deposit stays payable.
      const refused = (await v3.get(`/v3/deposits/${d.id}`)).body.card_refusal;
      assert.deepEqual([refused.reason, refused.reason_code, refused.attempts], ['card declined', null, 1]);

      const paid = await pay(d.token, form.html, '4111 1111 1111 1111');
      assert.equal(paid.status, 303);
      assert.equal(paid.location, `/connectors/staging-card/return/${d.token}`);
      assert.equal(await status(d.id), 'COMPLETED', 'no challenge: the network notified the authorisation');
      const back = await get(`${s.url}${paid.location}`);
      assert.equal(back.status, 303);
      assert.equal(back.location, `/checkout/${d.token}`);
      const done = await v3.get(`/v3/deposits/${d.id}`);
      assert.equal(done.body.status, 'COMPLETED');
      assert.deepEqual(done.body.card_detail, { card_holder: 'ANA SILVA', masked_card: '411111******1111', brand: 'VISA', expiration: '12/30' });
      const final = await get(d.url);
      assert.equal(final.status, 200);
      assert.match(final.html, /data-phase="?completed/);

      // The same return again (a reload, a replay): completed once.
      assert.equal((await get(returnLeg(d.token))).status, 303);
      assert.equal(await completions(d.id), 1);
      // The card page of a paid deposit goes back to the checkout; it takes no second card.
      assert.equal((await get(`${s.url}/checkout/${d.token}/card`)).location, `/checkout/${d.token}`);
      assert.equal((await pay(d.token, form.html, '4111 1111 1111 1111')).location, `/checkout/${d.token}`);
    });

    test('a 3-D Secure step: the return waits for the answer; approve completes, reject declines', async () => {
      const m = await card('MC', '80.00');
      const form = await get(`${s.url}${(await get(m.url)).location}`);
      const challenge = await pay(m.token, form.html, '5200 0000 0000 1096');
      assert.equal(challenge.status, 200);
      assert.match(challenge.html, /id="challenge"/);
      assert.match(challenge.html, /MASTERCARD 520000\*\*\*\*\*\*1096/);
      assert.equal((await get(returnLeg(m.token))).status, 303);
      assert.equal(await status(m.id), 'PENDING', 'an open challenge completes nothing');
      const approved = await post(`${s.url}/checkout/${m.token}/card/confirm`, { csrf: csrfOf(challenge.html), decision: 'approve' });
      assert.equal(approved.location, `/connectors/staging-card/return/${m.token}`);
      assert.equal(await status(m.id), 'PENDING', 'the challenge answered: the return leg settles it');
      assert.equal((await get(`${s.url}${approved.location}`)).location, `/checkout/${m.token}`);
      const done = await v3.get(`/v3/deposits/${m.id}`);
      assert.equal(done.body.status, 'COMPLETED');
      assert.deepEqual(done.body.card_detail, { card_holder: 'ANA SILVA', masked_card: '520000******1096', brand: 'MASTERCARD', expiration: '12/30' });
      assert.equal((await get(returnLeg(m.token))).status, 303);
      assert.equal(await completions(m.id), 1, 'a second return completes nothing more');

      const r = await card('MC', '81.00');
      const rform = await get(`${s.url}${(await get(r.url)).location}`);
      const rch = await pay(r.token, rform.html, '5200 0000 0000 1096');
      const rejected = await post(`${s.url}/checkout/${r.token}/card/confirm`, { csrf: csrfOf(rch.html), decision: 'reject' });
      assert.equal(rejected.status, 200);
      assert.match(rejected.html, /name="number"/, 'the card page again');
      assert.equal((await get(returnLeg(r.token))).status, 303);
      assert.equal(await status(r.id), 'PENDING');
      assert.equal((await v3.get(`/v3/deposits/${r.id}`)).body.card_refusal.reason, '3-D Secure not confirmed');
      // The challenge was answered: a second answer finds none open.
      const again = await post(`${s.url}/checkout/${r.token}/card/confirm`, { csrf: csrfOf(rch.html), decision: 'approve' });
      assert.equal(again.location, `/checkout/${r.token}`);
      assert.equal(await status(r.id), 'PENDING');
    });

    test('a next action that posts to the provider\'s page renders its form, allowed by the page\'s form-action; a stored next action is what a reload shows', async () => {
      const d = await card('VI');
      assert.equal((await get(d.url)).status, 303);
      // As a provider's 3-D Secure step that takes a form would have answered (an acquirer's kind).
      const challenge = { type: 'challenge', url: 'https://acs.example/3ds?x=1', method: 'POST', data: { creq: 'eyJ0aHJlZURTU2VydmVyVHJhbnNJRCI6IjEifQ' } };
      await s.ctx.db.query('UPDATE deposits SET next_action = $2 WHERE id = $1', [d.id, JSON.stringify(challenge)]);
      const r = await fetch(d.url, { redirect: 'manual', headers: { 'accept-language': 'en' } });
      const html = await r.text();
      assert.equal(r.status, 200);
      assert.match(html, /<form method="post" action="https:\/\/acs\.example\/3ds\?x=1"[^>]*data-next-action>/);
      assert.match(html, /<input type="hidden" name="creq" value="eyJ0aHJlZURTU2VydmVyVHJhbnNJRCI6IjEifQ">/);
      assert.match(r.headers.get('content-security-policy')!, /form-action 'self' https:\/\/acs\.example(;|$)/);
      // A stored URL no browser should be sent to is no next action: the method cannot be set up.
      await s.ctx.db.query('UPDATE deposits SET next_action = $2 WHERE id = $1', [d.id, JSON.stringify({ type: 'redirect', url: 'javascript:alert(1)', method: 'GET' })]);
      const bad = await get(d.url);
      assert.equal(bad.status, 200);
      assert.match(bad.html, /data-phase="no_methods"/);
      assert.doesNotMatch(bad.html, /javascript:/);
      assert.equal(await status(d.id), 'PENDING');
    });

    test('a forged or unknown return is refused cleanly: 404 pages, nothing changed, never a 500', async () => {
      const d = await card('MC');
      const form = await get(`${s.url}${(await get(d.url)).location}`);
      const challenge = await pay(d.token, form.html, '5200 0000 0000 1096');
      await post(`${s.url}/checkout/${d.token}/card/confirm`, { csrf: csrfOf(challenge.html), decision: 'approve' });
      // The card network authorised it, but a return under another connector's name is no return of its.
      for (const path of [
        `/connectors/staging/return/${d.token}`,
        `/connectors/pix/return/${d.token}`,
        `/connectors/nope/return/${d.token}`,
        `/connectors/${'x'.repeat(40)}/return/${d.token}`,
        `/connectors/%3Cscript%3E/return/${d.token}`,
        `/connectors/staging-card/return/${'A'.repeat(22)}`,
        `/connectors/staging-card/return/not-a-token`,
        `/connectors/staging-card/return/${d.token}%00`,
      ]) {
        const r = await get(`${s.url}${path}`);
        assert.equal(r.status, 404, `${path}: ${r.status}`);
        const p = await post(`${s.url}${path}`, { resultCode: 'Authorised' });
        assert.equal(p.status, 404, `POST ${path}: ${p.status}`);
      }
      assert.equal(await status(d.id), 'PENDING');
      // A Pix deposit's token on the card network's return leg: not its charge.
      const pix = await v3.post('/v3/deposits', { invoice_id: inv(), country: 'BR', currency: 'BRL', amount: '10.00', payment_method: 'IX', payer: BR_PAYER });
      const pixToken = (pix.body.redirect_url as string).split('/').pop()!;
      assert.equal((await get(returnLeg(pixToken))).status, 404);
      assert.equal((await v3.get(`/v3/deposits/${pix.body.deposit_id}`)).body.status, 'PENDING');
      // Garbage bodies on the real path: answered, never a 500.
      for (const body of ['%%%', 'a[]=1&a[]=2', 'x='.repeat(500)]) {
        const r = await fetch(returnLeg(d.token), { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
        assert.ok(r.status < 500, `${body.slice(0, 10)}: ${r.status}`);
      }
      // The real return still completes it.
      assert.equal((await get(returnLeg(d.token))).status, 303);
      assert.equal(await status(d.id), 'COMPLETED');
    });
  });
}

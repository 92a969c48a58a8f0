// The console's merchants: search, creation, a merchant's page, its settings, limits, credential
// rotation and balance adjustments (requested here, approved by a second operator).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../config/context.ts';
import { ISO_CURRENCIES } from '../../../domain/countries.ts';
import { minorUnits } from '../../../domain/currencies.ts';
import { fromDb, parseAmount, toDb, toFixed, toPlainString } from '../../../domain/money.ts';
import { checkCallbackUrl } from '../../../domain/urls.ts';
import { listLimits } from '../../../deposits/limits.ts';
import { parseLimitInput } from '../../../domain/limit-input.ts';
import { setMerchantLimit } from '../../../operators/limits.ts';
import { merchantBalances } from '../../../ledger/ledger.ts';
import { allConnectorViews } from '../../../connectors/store.ts';
import {
  CREDENTIAL_SETS, type CredentialSet, createMerchant, credentialsView, getMerchant, MAX_ROTATION_GRACE_HOURS, rotateCredentials, rotationGraceHours, updateMerchant,
} from '../../../merchants/merchants.ts';
import { requestAdjustment } from '../../../operators/approvals.ts';
import { actorOf } from '../../../operators/auth.ts';
import { searchMerchants } from '../../../operators/search.ts';
import * as V from '../views.ts';
import type { OpsKit } from '../route-types.ts';
import { idOf, text } from './common.ts';

export function registerOpsMerchants(app: FastifyInstance, ctx: AppContext, kit: OpsKit): void {
  const { opsRoute, notFound } = kit;

  app.get('/ops/merchants', opsRoute('view', async (c) => {
    const q = text(c.query.q, 200);
    return V.merchantsPage(c.f, { q, hits: await searchMerchants(ctx.db, q) });
  }));

  app.post('/ops/merchants', opsRoute('merchants.create', async (c) => {
    const name = text(c.body.name, 200);
    const urls = { notification_url: text(c.body.notification_url, 2000) || null, return_url: text(c.body.return_url, 2000) || null };
    const problems = [
      ...(name ? [] : [`${c.f.t.name}: required`]),
      ...Object.entries(urls).flatMap(([k, v]) => {
        const reason = v === null ? null : checkCallbackUrl(v, ctx.config);
        return reason ? [`${k} ${reason}`] : [];
      }),
    ];
    if (problems.length) return V.merchantsPage(c.f, { q: '', hits: await searchMerchants(ctx.db, ''), error: problems.join('; ') });
    const actor = actorOf(c.s);
    const { merchant, credentials } = await createMerchant(ctx.db, ctx.box, ctx.config, { name, ...urls }, (m) => ({
      ops: actor, action: 'merchant.created', merchantId: m.id, subject: `merchant:${m.id}`, detail: { name }, at: ctx.now(),
    }));
    return V.merchantsPage(c.f, { q: '', hits: await searchMerchants(ctx.db, String(merchant.id)), created: { id: merchant.id, credentials: credentialsView(merchant, credentials) } });
  }));

  async function merchantDetail(id: number): Promise<V.MerchantDetail | null> {
    const m = await getMerchant(ctx.db, id);
    if (!m) return null;
    const [balances, limits, connectors] = await Promise.all([merchantBalances(ctx.db, id), listLimits(ctx.db), allConnectorViews(ctx)]);
    return {
      id: m.id, name: m.name, environment: m.environment, notificationUrl: m.notification_url, returnUrl: m.return_url,
      settlementCurrency: m.settlement_currency, threshold: m.cashout_approval_usd === null ? null : toFixed(fromDb(m.cashout_approval_usd), 2),
      balances: balances.map((b) => ({ currency: b.currency, available: toDb(b.available), reserved: toDb(b.reserved) })),
      feeSchedule: m.fee_schedule,
      limits: limits.filter((l) => l.merchant_id === null || l.merchant_id === id).map((l) => ({
        country: l.country ?? '*', method: l.payment_method ?? '*', perTransaction: l.per_transaction ?? '—', daily: l.daily ?? '—', monthly: l.monthly ?? '—',
      })),
      connectors: connectors.map((x) => ({ name: x.name, methods: Object.keys(x.settings).join(', ') })),
      credentialSets: CREDENTIAL_SETS,
    };
  }

  app.get('/ops/merchants/:id', opsRoute('view', async (c) => {
    const id = idOf(c);
    const m = id === null ? null : await merchantDetail(id);
    if (!m) return notFound(c);
    return V.merchantPage(c.f, m, { notice: c.query.done === 'saved' ? c.f.t.saved : c.query.done === 'requested' ? c.f.t.requested : undefined });
  }));

  app.post('/ops/merchants/:id/settings', opsRoute('merchants.settings', async (c) => {
    const id = idOf(c);
    const m = id === null ? null : await merchantDetail(id);
    if (!m || id === null) return notFound(c);
    const problems: string[] = [];
    const name = text(c.body.name, 200);
    if (!name) problems.push(`${c.f.t.name}: required`);
    const urls: Record<string, string | null> = { notification_url: text(c.body.notification_url, 2000) || null, return_url: text(c.body.return_url, 2000) || null };
    for (const [k, v] of Object.entries(urls)) {
      const reason = v === null ? null : checkCallbackUrl(v, ctx.config);
      if (reason) problems.push(`${k} ${reason}`);
    }
    const thresholdText = text(c.body.cashout_approval_usd, 40);
    const threshold = thresholdText ? parseAmount(thresholdText, { maxDecimals: 2, maxIntegerDigits: 14, allowZero: true }) : null;
    if (threshold && !threshold.ok) problems.push(`${c.f.t.threshold}: ${threshold.reason}`);
    if (problems.length) return V.merchantPage(c.f, m, { error: problems.join('; ') });
    await updateMerchant(ctx.db, id, { name, notification_url: urls.notification_url, return_url: urls.return_url, cashout_approval_usd: threshold?.ok ? toDb(threshold.value) : null }, ctx.cache, {
      ops: actorOf(c.s), action: 'merchant.settings', merchantId: id, subject: `merchant:${id}`,
      detail: { name, ...urls, cashout_approval_usd: threshold?.ok ? toPlainString(threshold.value) : null }, at: ctx.now(),
    });
    return { redirect: `/ops/merchants/${id}?done=saved` };
  }));

  app.post('/ops/merchants/:id/limits', opsRoute('merchants.settings', async (c) => {
    const id = idOf(c);
    const m = id === null ? null : await merchantDetail(id);
    if (!m || id === null) return notFound(c);
    // An empty box is no ceiling, as an absent field is to PUT /admin/limits.
    const fields: Record<string, unknown> = { merchant_id: id };
    for (const k of ['country', 'payment_method', 'per_transaction', 'daily', 'monthly']) {
      const v = text(c.body[k], 40);
      if (v) fields[k] = v;
    }
    const input = parseLimitInput(fields);
    if (!input.ok) return V.merchantPage(c.f, m, { error: input.details.join('; ') });
    await setMerchantLimit(ctx, input.value, actorOf(c.s));
    return { redirect: `/ops/merchants/${id}?done=saved` };
  }));

  app.post('/ops/merchants/:id/rotate', opsRoute('merchants.rotate', async (c) => {
    const id = idOf(c);
    const set = c.body.set as CredentialSet;
    if (id === null || !CREDENTIAL_SETS.includes(set)) return notFound(c);
    const asked = Number(c.body.grace_hours);
    const grace = rotationGraceHours(set, c.body.grace_hours !== undefined && asked >= 0 && asked <= MAX_ROTATION_GRACE_HOURS ? asked : undefined);
    const rotated = await rotateCredentials(ctx.db, ctx.box, id, set, ctx.cache, {
      ops: actorOf(c.s), action: 'merchant.rotated', merchantId: id, subject: `merchant:${id}`, detail: { set, grace_hours: grace }, at: ctx.now(),
    }, grace);
    const m = await merchantDetail(id);
    if (!rotated || !m) return notFound(c);
    return V.merchantPage(c.f, m, { rotated: { set, credentials: credentialsView(rotated.merchant, rotated.credentials), previousValidUntil: rotated.previousValidUntil } });
  }));

  app.post('/ops/merchants/:id/adjustments', opsRoute('money.request', async (c) => {
    const id = idOf(c);
    const m = id === null ? null : await merchantDetail(id);
    if (!m || id === null) return notFound(c);
    const direction = c.body.direction === 'debit' ? 'debit' : c.body.direction === 'credit' ? 'credit' : null;
    const currency = text(c.body.currency, 3).toUpperCase();
    // The currency's own decimals, as the admin API's adjustments (a CLP amount has none).
    const amount = parseAmount(text(c.body.amount, 40), { maxDecimals: ISO_CURRENCIES.has(currency) ? minorUnits(currency) : 2, maxIntegerDigits: 14 });
    const reason = text(c.body.reason, 500);
    const problems = [
      ...(direction ? [] : [`${c.f.t.direction}: credit or debit`]),
      ...(ISO_CURRENCIES.has(currency) ? [] : [`${c.f.t.currency}: not an ISO 4217 currency`]),
      ...(amount.ok ? [] : [`${c.f.t.amount}: ${amount.reason}`]),
      ...(reason ? [] : [`${c.f.t.reason}: required`]),
    ];
    if (problems.length || !amount.ok || !direction) return V.merchantPage(c.f, m, { error: problems.join('; ') });
    await requestAdjustment(ctx, actorOf(c.s), id, { direction, amount: amount.value, currency, reason });
    return { redirect: `/ops/merchants/${id}?done=requested` };
  }));
}

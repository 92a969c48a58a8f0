// The balance: movements by currency, and their CSV.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { toFixed } from '../../domain/money.ts';
import { merchantBalances } from '../../ledger/ledger.ts';
import { getMerchant } from '../../merchants/merchants.ts';
import { parseId } from '../../domain/ids.ts';
import { audit } from '../services/audit.ts';
import { movements } from '../services/balance.ts';
import { getReport, listReports, reportCsv } from '../../settlements/service.ts';
import { Readable } from 'node:stream';
import type { PanelGate } from './gate.ts';
import { csvStream, EXPORT_BATCH, PAGE_SIZE } from './lists.ts';
import * as V from '../views/pages.ts';

export function registerBalance(app: FastifyInstance, ctx: AppContext, gate: PanelGate): void {
  const { route: panelRoute } = gate;

  app.get('/panel/balance', panelRoute('view', async (c) => {
    const balances = await merchantBalances(ctx.db, c.s.actor.merchantId);
    const merchant = await getMerchant(ctx.db, c.s.actor.merchantId);
    const currency = c.query.currency && /^[A-Z]{3}$/.test(c.query.currency) ? c.query.currency : balances[0]?.currency ?? merchant!.settlement_currency;
    if (c.query.before && parseId(c.query.before) === null) return V.messagePage(c.f, c.f.t.errorTitle, c.f.t.badRequest.replace('{reason}', 'bad cursor'), 400, c.f);
    const m = await movements(ctx.db, c.s.actor.merchantId, currency, parseId(c.query.before) ?? undefined, PAGE_SIZE);
    const reports = await listReports(ctx.db, c.s.actor.merchantId, { currency, limit: 14 });
    return V.balancePage(c.f, { balances: m.balances, currency, rows: m.data, next: m.next, before: c.query.before, reports });
  }));

  // A daily settlement report as the API's CSV (docs/balance.md#settlement-reports).
  app.get('/panel/balance/settlements/:currency/:date', panelRoute('view', async (c) => {
    const { currency = '', date = '' } = c.request.params as Record<string, string | undefined>;
    const day = /^(\d{4}-\d\d-\d\d)\.csv$/.exec(date)?.[1];
    if (!/^[A-Z]{3}$/.test(currency) || !day) return V.messagePage(c.f, c.f.t.errorTitle, c.f.t.badRequest.replace('{reason}', 'bad report'), 400, c.f);
    const found = await getReport(ctx.db, c.s.actor.merchantId, currency, day);
    if (!found) return V.messagePage(c.f, c.f.t.errorTitle, c.f.t.notFound, 404, c.f);
    await audit(ctx.db, c.s.actor, 'settlement.exported', null, { currency, date: day }, ctx.now());
    return { filename: `settlement-${currency}-${day}.csv`, csv: Readable.from([reportCsv(found.report, found.lines)]) };
  }));

  app.get('/panel/balance.csv', panelRoute('view', async (c) => {
    const currency = c.query.currency && /^[A-Z]{3}$/.test(c.query.currency) ? c.query.currency : null;
    if (!currency) return V.messagePage(c.f, c.f.t.errorTitle, c.f.t.badRequest.replace('{reason}', 'currency is required'), 400, c.f);
    await audit(ctx.db, c.s.actor, 'balance.exported', null, { currency }, ctx.now());
    return {
      filename: `balance-${currency}.csv`,
      csv: csvStream(
        ['transaction_id', 'created_at', 'type', 'source_type', 'source_id', 'available_change', 'reserved_change', 'fee', 'available_after', 'pending'],
        async (before) => {
          const m = await movements(ctx.db, c.s.actor.merchantId, currency, before, EXPORT_BATCH);
          return { rows: m.data, next: m.next };
        },
        (x) => [x.id, x.created_at, x.type, x.source.type, x.source.id, toFixed(x.amount, 2), toFixed(x.reserved, 2), toFixed(x.fee, 2), toFixed(x.availableAfter, 2), x.pending],
      ),
    };
  }));
}

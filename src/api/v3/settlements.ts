// Daily settlement reports (v3 header auth, deposits credentials; docs/balance.md#settlement-reports):
//   GET /v3/settlements                      the reports made, newest first (currency, from, to, limit)
//   GET /v3/settlements/{currency}/{date}    one report with its lines: JSON, or CSV with format=csv
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3HeaderAuth } from '../auth/v3-headers.ts';
import { toJson } from '../../deposits/json.ts';
import { v3Errors } from '../../http/errors.ts';
import { getReport, listReports, reportCsv, type SettlementReport } from '../../settlements/service.ts';
import { sendJson } from './deposits.ts';
import { v3ErrorSchema } from './face.ts';

const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema };
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const CURRENCY = /^[A-Z]{3}$/;

const balances = {
  type: 'object',
  properties: { available: { type: 'number' }, reserved: { type: 'number' }, fees: { type: 'number' } },
} as const;

const summary = {
  currency: { type: 'string' },
  date: { type: 'string', description: 'The day, in the merchant\'s timezone' },
  timezone: { type: 'string', description: 'The merchant\'s IANA timezone when the report was made' },
  period_start: { type: 'string', description: 'The day\'s first instant (UTC)' },
  period_end: { type: 'string', description: 'The next day\'s first instant (UTC)' },
  opening: balances,
  closing: { ...balances, description: 'opening + the lines; the next report\'s opening' },
  line_count: { type: 'integer' },
  generated_at: { type: 'string' },
} as const;

const listSchema = { type: 'object', properties: { data: { type: 'array', items: { type: 'object', properties: summary } } } } as const;

const reportSchema = {
  type: 'object',
  properties: {
    ...summary,
    lines: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          line: { type: 'integer' },
          transfer_id: { type: 'integer', description: 'The movement\'s id in GET /v3/balance/transactions' },
          type: { type: 'string', description: 'deposit.credit, refund.reserve, refund.post, refund.void, cashout.reserve, cashout.post, cashout.void, cashout.return, adjustment.credit, adjustment.debit, …' },
          source: { type: 'object', properties: { type: { type: 'string' }, id: { type: 'integer' } } },
          reference: { type: 'string', nullable: true, description: 'A deposit\'s invoice_id (a refund\'s: its deposit\'s), a cashout\'s external_id, an adjustment\'s reason' },
          available: { type: 'number', description: 'Change of the available balance' },
          reserved: { type: 'number', description: 'Change of the reserved balance' },
          fee: { type: 'number', description: 'Fees charged (negative: returned)' },
          booked_at: { type: 'string' },
          correction: { type: 'boolean', description: 'Booked before this period: it missed an earlier report' },
        },
      },
    },
  },
} as const;

const iso = (d: Date) => d.toISOString();
const summaryOf = (r: SettlementReport) => ({
  currency: r.currency, date: r.day, timezone: r.timezone, period_start: iso(r.periodStart), period_end: iso(r.periodEnd),
  opening: r.opening, closing: r.closing, line_count: r.lineCount, generated_at: iso(r.generatedAt),
});

export function registerSettlements(app: FastifyInstance, ctx: AppContext): void {
  const auth = v3HeaderAuth(ctx, 'deposits');

  app.get<{ Querystring: { currency?: string; from?: string; to?: string; limit?: string } }>(
    '/v3/settlements',
    {
      preValidation: auth,
      schema: {
        tags: ['balance'],
        summary: 'Daily settlement reports made so far, newest first',
        description: 'One report per currency and day of the merchant\'s timezone, made after the day ends (docs/balance.md#settlement-reports).',
        security: [{ v3Signature: [] }],
        querystring: {
          type: 'object',
          properties: {
            currency: { type: 'string' }, from: { type: 'string', description: 'YYYY-MM-DD, inclusive' },
            to: { type: 'string', description: 'YYYY-MM-DD, inclusive' }, limit: { type: 'string', description: '1 to 366, default 31' },
          },
        },
        response: { 200: listSchema, ...errors },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const details: string[] = [];
      if (q.currency !== undefined && !CURRENCY.test(q.currency)) details.push('currency: must be an ISO 4217 code');
      for (const k of ['from', 'to'] as const) if (q[k] !== undefined && !DATE.test(q[k]!)) details.push(`${k}: must be a date YYYY-MM-DD`);
      const limit = q.limit === undefined ? 31 : /^\d{1,3}$/.test(q.limit) ? Number(q.limit) : NaN;
      if (!(limit >= 1 && limit <= 366)) details.push('limit: must be an integer from 1 to 366');
      if (details.length) throw v3Errors.validation(details);
      const reports = await listReports(ctx.db, request.merchant!.id, { currency: q.currency, from: q.from, to: q.to, limit });
      return sendJson(reply, 200, toJson({ data: reports.map(summaryOf) }));
    },
  );

  app.get<{ Params: { currency: string; date: string }; Querystring: { format?: string } }>(
    '/v3/settlements/:currency/:date',
    {
      preValidation: auth,
      schema: {
        tags: ['balance'],
        summary: 'One daily settlement report with every movement of the day',
        description: '`format=csv` answers text/csv: an opening_balance row, one row per movement, a closing_balance row.',
        security: [{ v3Signature: [] }],
        querystring: { type: 'object', properties: { format: { type: 'string', enum: ['json', 'csv'] } } },
        response: { 200: reportSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { currency, date } = request.params;
      const details: string[] = [];
      if (!CURRENCY.test(currency)) details.push('currency: must be an ISO 4217 code');
      if (!DATE.test(date)) details.push('date: must be a date YYYY-MM-DD');
      if (details.length) throw v3Errors.validation(details);
      const found = await getReport(ctx.db, request.merchant!.id, currency, date);
      if (!found) throw v3Errors.notFound(`No settlement report for ${currency} on ${date}: reports are made after the day ends in the merchant's timezone, for currencies with a balance`);
      if (request.query.format === 'csv') {
        return reply.status(200).header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="settlement-${found.report.merchantId}-${currency}-${date}.csv"`)
          .send(reportCsv(found.report, found.lines));
      }
      return sendJson(reply, 200, toJson({
        ...summaryOf(found.report),
        lines: found.lines.map((l) => ({
          line: l.line, transfer_id: l.transferId, type: l.type, source: l.source, reference: l.reference,
          available: l.available, reserved: l.reserved, fee: l.fee, booked_at: iso(l.bookedAt), correction: l.correction,
        })),
      }));
    },
  );
}

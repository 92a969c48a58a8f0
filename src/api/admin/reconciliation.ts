// Reconciliation against bank statements (docs/reconciliation.md), admin token:
//   POST /admin/reconciliation/statements                 the file as the bank sent it → 201, or 200
//                                                         with the first import's figures
//   GET  /admin/reconciliation/statements                 the imports, newest first
//   GET  /admin/reconciliation/matches                    what entries were matched to, by which rule
//   GET  /admin/reconciliation/exceptions                 the exceptions queue (open by default)
//   POST /admin/reconciliation/exceptions/:id/resolve     an operator's resolution
//   POST /admin/reconciliation/provider-statements        fetch a day from the providers and import it
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3Errors } from '../../http/errors.ts';
import { formatFromRequest } from '../../reconciliation/formats.ts';
import { listExceptions, listImports, listMatches, ReconciliationError, validateResolution } from '../../reconciliation/service.ts';
import { importWithFourEyes, resolveOrRequest } from '../../operators/four-eyes.ts';
import { STATEMENT_FORMATS } from '../../reconciliation/statement.ts';
import { fetchProviderDay } from '../../reconciliation/provider-statements.ts';
import { connectorKinds } from '../../connectors/providers.ts';
import { v3ErrorSchema } from '../v3/face.ts';
import { tokenActor } from './auth.ts';

/** A statement of 100,000 entries is some 60 MB of camt; the rest of the API keeps its 1 MB. */
export const STATEMENT_BODY_LIMIT = 128 * 1024 * 1024;
const STATEMENT_TYPES = ['application/xml', 'text/xml', 'application/x-ofx', 'application/ofx', 'text/plain', 'application/octet-stream'];

const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema, 409: v3ErrorSchema, 413: v3ErrorSchema, 415: v3ErrorSchema };
const paging = {
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  before: { type: 'string', pattern: '^[0-9]{1,10}$', description: 'next_before of the previous page' },
} as const;
const nextBefore = { type: ['integer', 'null'], description: 'Pass as `before` for the next (older) page; null at the end' } as const;
const text = { type: ['string', 'null'] } as const;

const figures = {
  type: 'object',
  required: ['statement_id', 'entries', 'matched', 'exceptions', 'repeated'],
  properties: {
    statement_id: { type: 'integer' }, entries: { type: 'integer', description: 'entries in the file' },
    matched: { type: 'integer' }, exceptions: { type: 'integer' },
    repeated: { type: 'integer', description: 'entries already imported from an earlier statement, stored once' },
  },
} as const;
const target = { type: 'object', required: ['type', 'id'], properties: { type: { type: 'string', enum: ['deposit', 'cashout', 'refund'] }, id: { type: 'integer' } } } as const;
const candidate = {
  type: 'object',
  properties: { type: { type: 'string' }, id: { type: 'integer' }, status: { type: 'string' }, amount: { type: 'string' }, currency: { type: 'string' } },
} as const;
const entry = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, account: { type: 'string' }, booking_date: { type: 'string' }, value_date: text, amount: { type: 'string' },
    currency: { type: 'string' }, direction: { type: 'string', enum: ['credit', 'debit'] }, reversal: { type: 'boolean' },
    references: { type: 'object', additionalProperties: true }, counterparty: { type: 'object', properties: { document: text, name: text } },
    description: text, status: { type: 'string' },
  },
} as const;
const exceptionView = {
  type: 'object',
  required: ['id', 'status', 'reason', 'detail', 'candidates', 'entry'],
  properties: {
    id: { type: 'integer' }, status: { type: 'string', enum: ['open', 'resolved'] },
    reason: { type: 'string', enum: ['unknown_reference', 'no_match', 'ambiguous', 'amount_differs', 'already_completed', 'already_matched', 'not_completable', 'awaits_approval', 'payer_mismatch'] },
    detail: { type: 'string' }, candidates: { type: 'array', items: candidate }, entry,
    resolution: { type: ['object', 'null'], additionalProperties: true }, resolved_by: text, resolved_at: text, created_at: { type: 'string' },
  },
} as const;

export function registerAdminReconciliation(app: FastifyInstance, ctx: AppContext): void {
  app.register(async (r) => {
    // Statement files arrive as they are; the parser decides what they say (this scope only).
    r.addContentTypeParser(STATEMENT_TYPES, { parseAs: 'buffer', bodyLimit: STATEMENT_BODY_LIMIT }, (req: FastifyRequest, body: Buffer, done) => {
      req.rawBody = body;
      done(null, body);
    });

    r.post<{ Querystring: { format?: string } }>(
      '/admin/reconciliation/statements',
      {
        bodyLimit: STATEMENT_BODY_LIMIT,
        schema: {
          tags: ['admin'],
          summary: 'Import a bank statement (camt.053, camt.054, OFX or CNAB 240 retorno) and reconcile its entries',
          description:
            'The body is the file as the bank sent it: Content-Type application/xml for camt, application/x-ofx for OFX, text/plain for CNAB 240, ' +
            'or any of them with ?format=camt053|camt054|ofx|cnab240. 201 with the figures; the same statement again answers 200 with the first ' +
            "import's figures and changes nothing; a malformed file answers 400 naming the line or element, and nothing is imported.",
          security: [{ adminToken: [] }],
          consumes: ['application/xml', 'application/x-ofx', 'text/plain'],
          querystring: { type: 'object', properties: { format: { type: 'string', enum: [...STATEMENT_FORMATS] } } },
          response: { 200: figures, 201: figures, ...errors },
        },
      },
      async (request, reply) => {
        const format = formatFromRequest(request.query.format, request.headers['content-type']);
        if (!format || !Buffer.isBuffer(request.body)) throw v3Errors.unsupportedStatementType();
        if (request.body.length === 0) throw new ReconciliationError('malformed', 'the body is empty', ['body: the statement file is required']);
        const { created, ...result } = await importWithFourEyes(ctx, format, request.body, tokenActor(request));
        return reply.status(created ? 201 : 200).send(result);
      },
    );
  });

  app.get<{ Querystring: { limit: number; before?: string } }>(
    '/admin/reconciliation/statements',
    {
      schema: {
        tags: ['admin'], summary: 'The imported bank statements, newest first', security: [{ adminToken: [] }],
        querystring: { type: 'object', properties: paging },
        response: {
          200: {
            type: 'object', required: ['data', 'next_before'],
            properties: {
              data: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'integer' }, account: { type: 'string' }, statement_ref: { type: 'string' }, format: { type: 'string' }, statement_date: text,
                    opening_balance: text, closing_balance: text, entries: { type: 'integer' }, matched: { type: 'integer' }, exceptions: { type: 'integer' },
                    repeated: { type: 'integer' }, imported_by: { type: 'string' }, created_at: { type: 'string' },
                  },
                },
              },
              next_before: nextBefore,
            },
          },
          ...errors,
        },
      },
    },
    async (request) => {
      const page = await listImports(ctx.db, { limit: request.query.limit, before: request.query.before ? Number(request.query.before) : undefined });
      return { data: page.rows, next_before: page.next };
    },
  );

  app.get<{ Querystring: { limit: number; before?: string; statement_id?: string } }>(
    '/admin/reconciliation/matches',
    {
      schema: {
        tags: ['admin'], summary: 'What statement entries were matched to, and by which rule (reference, amount_date_document, settlement_batch, operator)',
        security: [{ adminToken: [] }],
        querystring: { type: 'object', properties: { ...paging, statement_id: { type: 'string', pattern: '^[0-9]{1,9}$' } } },
        response: {
          200: {
            type: 'object', required: ['data', 'next_before'],
            properties: {
              data: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'integer' }, entry_id: { type: 'integer' }, statement_id: { type: 'integer' }, rule: { type: 'string' }, target,
                    effect: { type: 'string' }, amount: { type: 'string' }, created_at: { type: 'string' },
                  },
                },
              },
              next_before: nextBefore,
            },
          },
          ...errors,
        },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listMatches(ctx.db, { limit: q.limit, before: q.before ? Number(q.before) : undefined, statementId: q.statement_id ? Number(q.statement_id) : undefined });
      return { data: page.rows, next_before: page.next };
    },
  );

  app.get<{ Querystring: { limit: number; before?: string; status: 'open' | 'resolved' | 'all' } }>(
    '/admin/reconciliation/exceptions',
    {
      schema: {
        tags: ['admin'], summary: 'The reconciliation exceptions queue: entries nothing was matched to, with the reason and the candidates',
        security: [{ adminToken: [] }],
        querystring: { type: 'object', properties: { ...paging, status: { type: 'string', enum: ['open', 'resolved', 'all'], default: 'open' } } },
        response: { 200: { type: 'object', required: ['data', 'next_before'], properties: { data: { type: 'array', items: exceptionView }, next_before: nextBefore } }, ...errors },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listExceptions(ctx.db, { limit: q.limit, before: q.before ? Number(q.before) : undefined, status: q.status === 'all' ? undefined : q.status });
      return { data: page.rows, next_before: page.next };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/admin/reconciliation/exceptions/:id/resolve',
    {
      schema: {
        tags: ['admin'],
        summary: 'Resolve an exception: {action: match, target: {type, id}} | {action: match, targets: [{type: deposit, id}, …]} | {action: book_fee|book_adjustment, reason} | {action: send_back, reason?}',
        description:
          'match: the entry is the money of that deposit or cashout (same amount and currency): a PENDING deposit completes, a CANCELLED one completes as a ' +
          'late payment, a sent cashout completes, a credit returns a cashout. match with targets: one credit settles several COMPLETED deposits (a PSP or ' +
          'acquirer batch), the difference booked to fees. book_fee / book_adjustment: booked on the bank side with the reason. ' +
          'send_back: the money is owed back to its sender (booked as unapplied).',
        security: [{ adminToken: [] }],
        params: { type: 'object', properties: { id: { type: 'string' } } },
        body: {
          type: 'object',
          properties: {
            action: { type: 'string', enum: ['match', 'book_fee', 'book_adjustment', 'send_back'] }, target,
            targets: { type: 'array', items: target, description: 'match only: the COMPLETED deposits one credit settles; the difference is booked as the fee' },
            reason: { type: 'string' },
          },
        },
        response: {
          200: exceptionView,
          202: {
            type: 'object',
            description: 'Production: a match that credits a merchant (completes a PENDING deposit, takes a CANCELLED one as a late payment, returns a cashout) ' +
              'waits for a second operator, who approves it in the console (/ops/approvals); the exception stays open until then',
            properties: { approval_id: { type: 'integer' }, status: { type: 'string', enum: ['pending'] }, exception_id: { type: 'integer' } },
            examples: [{ approval_id: 18, status: 'pending', exception_id: 42 }],
          },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const resolution = validateResolution(request.body);
      if (!resolution.ok) throw new ReconciliationError('invalid_resolution', 'Invalid resolution', resolution.details);
      const id = Number(request.params.id);
      const done = await resolveOrRequest(ctx, id, resolution.value, tokenActor(request));
      if (done.status === 'pending') return reply.status(202).send({ approval_id: done.approval_id, status: 'pending', exception_id: id });
      return done.exception;
    },
  );

  app.post<{ Body: { date?: string; connector?: string } | undefined }>(
    '/admin/reconciliation/provider-statements',
    {
      schema: {
        tags: ['admin'],
        summary: "Fetch a day's statement from the providers (STP's received and sent orders, the PSP's received Pix and devoluções) and reconcile it",
        description:
          'What the provider statements worker does every CAJA_PROVIDER_STATEMENTS_SECONDS for the closed days, now, for one day (default: yesterday, UTC) ' +
          'and every configured connector that lists its days (or the one named). Each day is imported as a camt.054 through the same path as an uploaded ' +
          'file: fetched again with nothing new it changes nothing (unchanged); a provider that cannot be read is reported failed.',
        security: [{ adminToken: [] }],
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { date: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }, connector: { type: 'string', enum: connectorKinds().filter((k) => k.statements).map((k) => k.name) } },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              data: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    connector: { type: 'string' }, date: { type: 'string' }, status: { type: 'string', enum: ['imported', 'unchanged', 'empty', 'failed'] },
                    statement_id: { type: 'integer' }, entries: { type: 'integer' }, matched: { type: 'integer' }, exceptions: { type: 'integer' },
                    repeated: { type: 'integer' }, error: { type: 'string' },
                  },
                },
              },
            },
          },
          ...errors,
        },
      },
    },
    async (request) => {
      const date = request.body?.date ?? new Date(ctx.now().getTime() - 86_400_000).toISOString().slice(0, 10);
      return { data: await fetchProviderDay(ctx, date, tokenActor(request), request.body?.connector) };
    },
  );
}

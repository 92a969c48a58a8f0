// Reconciliation from the console beyond resolving one exception (src/web/ops/routes.ts does that):
// uploading a bank statement file (multipart; the format chosen, or read from the file's type as
// POST /admin/reconciliation/statements reads Content-Type) answered with the API's figures, and
// matching one bank credit to several deposits at once (a settlement batch: the service's
// `targets` resolution). Both through src/reconciliation/service.ts, audited there.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { parseId } from '../../domain/ids.ts';
import { readBodyLimited } from '../../http/body-parsers.ts';
import { actorOf } from '../../operators/auth.ts';
import { csrfMatches } from '../../backoffice/sessions.ts';
import { formatFromRequest } from '../../reconciliation/formats.ts';
import { ReconciliationError, validateResolution } from '../../reconciliation/service.ts';
import { importWithFourEyes, resolveOrRequest } from '../../operators/four-eyes.ts';
import { STATEMENT_FORMATS } from '../../reconciliation/statement.ts';
import type { ExceptionView } from '../../reconciliation/service.ts';
import { field } from '../../panel/views/pages.ts';
import { html, type SafeHtml } from '../html.ts';
import { sameOrigin } from '../session-cookies.ts';
import { csrfField, fillText } from '../view-helpers.ts';
import type { Ctx, OpsRouteOf, Result } from './route-types.ts';
import * as V from './frame.ts';

/** A day's statement of a busy account is tens of MB; the admin API takes up to 128 MB for automation. */
const UPLOAD_LIMIT = 64 * 1024 * 1024;

/** The upload form at the top of the reconciliation page (roles that may reconcile). */
export function uploadForm(f: V.Frame): SafeHtml {
  const t = f.t;
  const formats: [string, string][] = [['', t.reconUpAuto], ...STATEMENT_FORMATS.map((x): [string, string] => [x, x])];
  return html`<form method="post" action="/ops/reconciliation/statements" enctype="multipart/form-data" class="card"><h2>${t.reconUpTitle}</h2>${csrfField(f)}
<div class="field"><label for="f-statement">${t.reconUpFile}</label><input id="f-statement" name="file" type="file" required aria-describedby="f-statement-hint"><p class="hint" id="f-statement-hint">${t.reconUpHint}</p></div>
${field('format', t.reconFormat, '', { options: formats })}<button class="button">${t.reconUpButton}</button></form>`;
}

/** Under an open credit's resolve forms: match it to several deposits (a settlement batch). */
export function batchForm(f: V.Frame, x: ExceptionView): SafeHtml {
  if (x.entry.direction !== 'credit') return html``;
  const t = f.t;
  const id = `b${x.id}`;
  const candidates = x.candidates.filter((c) => c.type === 'deposit').map((c) => c.id).join(', ');
  return html`<form method="post" action="/ops/reconciliation/exceptions/${x.id}/batch">${csrfField(f)}
${field(`${id}-deposits`, t.reconBatchDeposits, candidates, { required: true, hint: t.reconBatchHint })}${field(`${id}-note`, t.reason, '')}
<input type="hidden" name="prefix" value="${id}"><button class="button secondary">${t.reconBatchButton}</button></form>`;
}

type ReconViewFn = (c: Ctx, o?: { notice?: string; error?: string; status?: number }) => Promise<Result>;

export function registerOpsStatements(app: FastifyInstance, ctx: AppContext, opsRoute: OpsRouteOf, reconView: ReconViewFn): void {
  // The upload in a scope of its own: only this route reads multipart, and only it takes a large body.
  app.register(async (upload) => {
    // The multipart body is passed on unread (a stream): the gate (session, role, Origin) answers
    // first, and only then does the handler read it, up to UPLOAD_LIMIT. Buffered by the parser, a
    // body of 64 MB was read into memory before the session was even looked at.
    upload.addContentTypeParser('multipart/form-data', (_request, payload, done) => done(null, payload));

    upload.post('/ops/reconciliation/statements', opsRoute('reconciliation', async (c) => {
      const t = c.f.t;
      const tooLarge = () => reconView(c, { error: fillText(t.reconUpTooLarge, { limit: String(UPLOAD_LIMIT / 1024 / 1024) }), status: 413 });
      if (Number(c.request.headers['content-length'] ?? 0) > UPLOAD_LIMIT) return tooLarge();
      const body = c.request.body as NodeJS.ReadableStream | undefined;
      const raw = body && typeof body === 'object' && typeof body.on === 'function' ? await readBodyLimited(body, UPLOAD_LIMIT) : null;
      if (raw === 'too_large') return tooLarge();
      // Read whole: this connection can be kept.
      c.reply.removeHeader('connection');
      let file: { bytes: Buffer; type: string; name: string } | null = null;
      let csrf: unknown;
      let chosen = '';
      if (raw) {
        try {
          const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': c.request.headers['content-type'] ?? '' } }).formData();
          csrf = form.get('csrf');
          chosen = String(form.get('format') ?? '');
          const f = form.get('file');
          if (f && typeof f !== 'string') file = { bytes: Buffer.from(await f.arrayBuffer()), type: f.type, name: f.name };
        } catch {
          file = null;
        }
      }
      // The token is inside the multipart body: checked here, before anything is read from the file.
      if (!sameOrigin(ctx, c.request) || !csrfMatches(c.s, csrf)) return V.messagePage(c.f, t.csrfTitle, t.csrf, 403, c.f);
      if (!file || file.bytes.length === 0) return reconView(c, { error: t.reconUpNoFile, status: 400 });
      // Chosen, or read from the file's type as the API reads Content-Type (.xml camt, .ofx OFX, text CNAB 240).
      const format = chosen ? formatFromRequest(chosen, undefined) : formatFromRequest(undefined, file.type);
      if (!format) return reconView(c, { error: fillText(t.reconUpUnknown, { type: file.type || '?' }), status: 400 });
      try {
        const r = await importWithFourEyes(ctx, format, file.bytes, actorOf(c.s));
        const figures = fillText(r.created ? t.reconUpDone : t.reconUpAgain, { file: file.name, id: r.statement_id, entries: r.entries, matched: r.matched, exceptions: r.exceptions, repeated: r.repeated });
        return reconView(c, { notice: figures, status: r.created ? 201 : 200 });
      } catch (err) {
        if (!(err instanceof ReconciliationError)) throw err;
        return reconView(c, { error: fillText(t.reconUpMalformed, { file: file.name, reason: [err.message, ...err.details.filter((d) => !err.message.includes(d))].join(' · ') }), status: 400 });
      }
    }, { upload: true }));
  });

  app.post('/ops/reconciliation/exceptions/:id/batch', opsRoute('reconciliation', async (c) => {
    const id = parseId(c.params.id);
    if (id === null) return V.messagePage(c.f, c.f.t.notFoundTitle, c.f.t.notFound, 404, c.f);
    const prefix = /^b\d{1,10}$/.test(c.body.prefix ?? '') ? c.body.prefix! : '';
    const listed = String(c.body[`${prefix}-deposits`] ?? '').slice(0, 20_000).split(/[\s,;]+/).filter(Boolean);
    const bad = listed.filter((x) => !/^\d{1,10}$/.test(x));
    if (listed.length === 0 || bad.length) return reconView(c, { error: fillText(c.f.t.reconBatchBad, { bad: bad.join(', ') || '—' }), status: 400 });
    const note = String(c.body[`${prefix}-note`] ?? '').trim().slice(0, 500);
    return resolveFromConsole(ctx, c, id, { action: 'match', targets: listed.map((x) => ({ type: 'deposit', id: Number(x) })), ...(note ? { reason: note } : {}) }, reconView);
  }));
}

/** Applies a resolution one of the page's forms asked for: its problems shown on the page, or back to the queue. */
export async function resolveFromConsole(ctx: AppContext, c: Ctx, id: number, body: unknown, reconView: ReconViewFn): Promise<Result> {
  const resolution = validateResolution(body);
  if (!resolution.ok) return reconView(c, { error: resolution.details.join('; '), status: 400 });
  try {
    // Production: a match that credits a merchant becomes a request a second operator approves.
    const done = await resolveOrRequest(ctx, id, resolution.value, actorOf(c.s));
    if (done.status === 'pending') return { redirect: '/ops/approvals?done=requested' };
  } catch (err) {
    if (!(err instanceof ReconciliationError)) throw err;
    return reconView(c, { error: err.message, status: err.kind === 'not_found' ? 404 : 409 });
  }
  return { redirect: '/ops/reconciliation?done=resolved' };
}


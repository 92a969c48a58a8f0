// The control port: plain HTTP on 127.0.0.1, for tests only. It plays the payer (pay a charge,
// optionally naming the payer Efí-style), the payer's bank (a MED devolução: med.ts),
// the PSP's moods (outages, refused charges, lost or duplicated webhooks, devolução outcomes),
// and shows what happened (state, requests, deliveries, schema violations).
import Fastify, { type FastifyInstance } from 'fastify';
import type { OutageMode } from './api.ts';
import type { OAuth } from './oauth.ts';
import type { Psp } from './psp.ts';
import type { Store } from './store.ts';
import type { WebhookMode, WebhookSender } from './webhooks.ts';
import { statementOfDay } from './statement.ts';
import { registerMed, validPagador } from './med.ts';

type Json = any;

export interface ControlOptions {
  psp: Psp;
  oauth: OAuth;
  store: Store;
  webhooks: WebhookSender;
  outage: { mode: OutageMode };
  /** The JSON line the simulator printed at start. */
  info: Record<string, string>;
}

const oneOf = <T extends string>(v: unknown, allowed: readonly T[]): v is T => typeof v === 'string' && (allowed as readonly string[]).includes(v);

export function buildControl(o: ControlOptions): FastifyInstance {
  const { psp, store, webhooks } = o;
  const app = Fastify({ logger: false, forceCloseConnections: true });
  const bad = (error: string) => ({ error });

  app.get('/control/info', async () => o.info);

  app.post('/control/pay', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    if (b.pagador !== undefined && !validPagador(b.pagador)) return reply.code(400).send(bad('pagador: {nome?, cpf (11 digits) | cnpj (14 digits)}'));
    const opts = { valor: b.valor, horario: b.horario, infoPagador: b.infoPagador, pagador: b.pagador };
    if (b.txid === undefined) {
      const a = psp.payKey(opts);
      return reply.code(a.status).send(a.body);
    }
    if (typeof b.txid !== 'string') return reply.code(400).send(bad('txid must be a string'));
    const a = psp.pay(b.txid, { ...opts, force: b.force === true });
    return reply.code(a.status).send(a.body);
  });

  app.post('/control/remove-cob', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    if (typeof b.txid !== 'string') return reply.code(400).send(bad('txid is required'));
    const a = psp.removeByPsp(b.txid);
    return reply.code(a.status).send(a.body);
  });

  app.post('/control/webhook-mode', async (req, reply) => {
    const mode = (req.body as Json)?.mode;
    if (!oneOf<WebhookMode>(mode, ['deliver', 'drop', 'duplicate'])) return reply.code(400).send(bad('mode: deliver | drop | duplicate'));
    webhooks.mode = mode;
    return { mode };
  });

  app.post('/control/outage', async (req, reply) => {
    const mode = (req.body as Json)?.mode;
    if (!oneOf<OutageMode>(mode, ['none', '503', 'hang', 'reset'])) return reply.code(400).send(bad('mode: none | 503 | hang | reset'));
    o.outage.mode = mode;
    return { mode };
  });

  app.post('/control/fail-next-cob', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    const status = Number(b.status);
    const count = b.count === undefined ? 1 : Number(b.count);
    if (!Number.isInteger(status) || status < 400 || status > 599) return reply.code(400).send(bad('status: an HTTP error status (400-599)'));
    if (!Number.isInteger(count) || count < 0) return reply.code(400).send(bad('count: a whole number'));
    psp.failNextCob = count === 0 ? null : { status, count, ...(typeof b.detail === 'string' ? { detail: b.detail } : {}) };
    return { status, count };
  });

  app.post('/control/expire-tokens', async () => {
    o.oauth.expireAll();
    return { expired: true };
  });

  app.post('/control/devolucao', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    if (b.outcome !== undefined && !oneOf(b.outcome, ['DEVOLVIDO', 'NAO_REALIZADO'] as const)) return reply.code(400).send(bad('outcome: DEVOLVIDO | NAO_REALIZADO'));
    if (b.settle !== undefined && !oneOf(b.settle, ['manual', 'immediate'] as const)) return reply.code(400).send(bad('settle: manual | immediate'));
    if (b.outcome) psp.devolucaoOutcome = b.outcome;
    if (b.settle) psp.devolucaoSettle = b.settle;
    return { outcome: psp.devolucaoOutcome, settle: psp.devolucaoSettle };
  });

  app.post('/control/settle-devolucoes', async () => ({ settled: psp.settleAll() }));

  registerMed(app, { psp, store, webhooks });

  /** Resolves once every webhook delivery under way, retries included, has ended. */
  app.post('/control/webhooks-idle', async () => {
    await webhooks.idle();
    return { idle: true };
  });

  app.get('/control/state', async () => {
    const s = store.state;
    return {
      cobs: Object.values(s.cobs).map((c) => psp.cobView(c)),
      pix: Object.values(s.pix).map((p) => psp.pixView(p)),
      devolucoes: store.devolucoes(),
      webhooks: Object.values(s.webhooks),
      tokensIssued: s.tokensIssued,
      requests: s.requests.map(({ method, path, query, status }) => ({ method, path, ...(query ? { query } : {}), status })),
      deliveries: s.deliveries,
      modes: {
        webhook: webhooks.mode,
        outage: o.outage.mode,
        failNextCob: psp.failNextCob,
        devolucao: { outcome: psp.devolucaoOutcome, settle: psp.devolucaoSettle },
      },
    };
  });

  /** The PSP account's camt.053 of a day (default today, UTC): received Pix and settled devoluções. */
  app.get('/control/statement', async (req, reply) => {
    const q = (req.query ?? {}) as Record<string, string | undefined>;
    const date = q.date ?? new Date().toISOString().slice(0, 10);
    const opening = q.opening ?? '0.00';
    if (!/^\d{4}-\d\d-\d\d$/.test(date)) return reply.code(400).send(bad('date: YYYY-MM-DD'));
    if (!/^-?\d{1,12}\.\d{2}$/.test(opening)) return reply.code(400).send(bad('opening: an amount with two decimals'));
    return reply.type('application/xml').send(statementOfDay(store, date, opening, o.info.pix_key ?? 'psp-account'));
  });

  app.get('/control/violations', async () => store.state.violations);

  app.post('/control/reset', async () => {
    webhooks.cancel();
    await webhooks.idle();
    store.reset();
    webhooks.mode = 'deliver';
    o.outage.mode = 'none';
    psp.failNextCob = null;
    psp.devolucaoOutcome = 'DEVOLVIDO';
    psp.devolucaoSettle = 'manual';
    return { reset: true };
  });

  return app;
}

// The PSP's API port: HTTPS with mutual TLS (only certificates signed by the simulator's CA get
// past the handshake), the OAuth token endpoint at /oauth/token and the API Pix under /v2.
// Each API route names its operation in the OpenAPI document; the document decides the scope a
// token needs, the parameters' and body's schemas (caja's side, answered 400 with `violacoes`)
// and the schema every answer is checked against before it leaves (the simulator's side).
// Whatever fails a check is recorded for GET /control/violations.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { OAuth } from './oauth.ts';
import { problem, type ProblemType } from './problems.ts';
import type { Answer, Psp } from './psp.ts';
import type { PixApiSchemas, Violacao } from './schema.ts';
import type { RequestRecord, Store } from './store.ts';

type Json = any;
export type OutageMode = 'none' | '503' | 'hang' | 'reset';

export interface ApiOptions {
  tls: { key: string; cert: string; ca: string };
  psp: Psp;
  oauth: OAuth;
  store: Store;
  schemas: PixApiSchemas;
  outage: () => OutageMode;
}

interface Route {
  method: 'GET' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path as the OpenAPI document writes it. */
  path: string;
  /** Name of the request body in violations (`cob.valor.original`); absent: no body. */
  body?: string;
  /** Problem answered when the parameters or body break the schema. */
  invalid: ProblemType;
  run: (r: { params: Record<string, string>; query: Record<string, string | undefined>; body: Json }) => Answer;
}

function routes(psp: Psp, store: Store): Route[] {
  const s = () => store.state;
  return [
    { method: 'PUT', path: '/cob/{txid}', body: 'cob', invalid: 'CobOperacaoInvalida', run: (r) => psp.putCob(r.params.txid!, r.body) },
    { method: 'PATCH', path: '/cob/{txid}', body: 'cob', invalid: 'CobOperacaoInvalida', run: (r) => psp.patchCob(r.params.txid!, r.body) },
    {
      method: 'GET',
      path: '/cob/{txid}',
      invalid: 'CobConsultaInvalida',
      run: (r) => psp.getCob(r.params.txid!, r.query.revisao === undefined ? undefined : Number(r.query.revisao)),
    },
    { method: 'GET', path: '/pix/{e2eid}', invalid: 'RequisicaoInvalida', run: (r) => psp.getPix(r.params.e2eid!) },
    { method: 'GET', path: '/pix', invalid: 'PixConsultaInvalida', run: (r) => psp.listPix(r.query) },
    {
      method: 'PUT',
      path: '/pix/{e2eid}/devolucao/{id}',
      body: 'devolucao',
      invalid: 'PixDevolucaoInvalida',
      run: (r) => psp.putDevolucao(r.params.e2eid!, r.params.id!, r.body),
    },
    { method: 'GET', path: '/pix/{e2eid}/devolucao/{id}', invalid: 'RequisicaoInvalida', run: (r) => psp.getDevolucao(r.params.e2eid!, r.params.id!) },
    {
      method: 'PUT',
      path: '/webhook/{chave}',
      body: 'webhook',
      invalid: 'WebhookOperacaoInvalida',
      run: ({ params, body }) => {
        const chave = params.chave!;
        if (chave !== psp.receiver.pixKey) {
          return { status: 400, body: problem('WebhookOperacaoInvalida', undefined, [{ razao: 'O parâmetro {chave} não corresponde a uma chave DICT pertencente a este usuário recebedor.', propriedade: 'chave', valor: chave }]) };
        }
        const url = safeUrl(body.webhookUrl);
        const loopback = url && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
        if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))) {
          return { status: 400, body: problem('WebhookOperacaoInvalida', undefined, [{ razao: 'Campo webhook.webhookUrl deve ser uma URL https (http só em loopback, no simulador).', propriedade: 'webhook.webhookUrl', valor: String(body.webhookUrl) }]) };
        }
        s().webhooks[chave] = { chave, webhookUrl: body.webhookUrl, criacao: s().webhooks[chave]?.criacao ?? new Date().toISOString() };
        store.save();
        return { status: 200 };
      },
    },
    {
      method: 'GET',
      path: '/webhook/{chave}',
      invalid: 'RequisicaoInvalida',
      run: ({ params }) => {
        const w = s().webhooks[params.chave!];
        if (!w) return { status: 404, body: problem('WebhookNaoEncontrado') };
        return { status: 200, body: { webhookUrl: w.webhookUrl, chave: w.chave, cnpj: psp.receiver.cnpj, criacao: w.criacao } };
      },
    },
    {
      method: 'DELETE',
      path: '/webhook/{chave}',
      invalid: 'RequisicaoInvalida',
      run: ({ params }) => {
        if (!s().webhooks[params.chave!]) return { status: 404, body: problem('WebhookNaoEncontrado') };
        delete s().webhooks[params.chave!];
        store.save();
        return { status: 204 };
      },
    },
  ];
}

function safeUrl(s: unknown): URL | null {
  try {
    return typeof s === 'string' ? new URL(s) : null;
  } catch {
    return null;
  }
}

const toFastifyPath = (p: string) => '/v2' + p.replace(/\{(\w+)\}/g, ':$1');

export function buildApi(o: ApiOptions): FastifyInstance {
  const { store, schemas, oauth } = o;
  const app = Fastify({
    https: { key: o.tls.key, cert: o.tls.cert, ca: [o.tls.ca], requestCert: true, rejectUnauthorized: true },
    forceCloseConnections: true,
    logger: false,
    bodyLimit: 1 << 20,
    exposeHeadRoutes: false, // only the document's operations
  });
  // Bodies arrive as text; the routes parse them, so a malformed one gets the API Pix's problem.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  const docPathOf = new Map<string, string>(); // fastify route url → document path
  const records = new WeakMap<FastifyRequest, RequestRecord>();

  /** Sends an answer, checking it against the document first when the route is an API Pix one. */
  function send(req: FastifyRequest, reply: FastifyReply, a: Answer): FastifyReply {
    const contentType = a.body === undefined ? undefined : a.status >= 400 ? 'application/problem+json' : 'application/json';
    const docPath = docPathOf.get(req.routeOptions.url ?? '');
    if (docPath) {
      let errors: string[];
      try {
        errors = schemas.validateResponse(req.method, docPath, a.status, contentType, a.body);
      } catch (err) {
        errors = [`could not be checked: ${(err as Error).message}`];
      }
      if (errors.length) store.violation({ side: 'response', method: req.method, path: req.url, status: a.status, errors });
    }
    reply.code(a.status).headers(a.headers ?? {});
    if (a.body === undefined) return reply.send();
    return reply.type(contentType!).send(JSON.stringify(a.body));
  }

  app.addHook('onRequest', async (req, reply) => {
    const [path, query] = req.url.split('?', 2) as [string, string | undefined];
    const record: RequestRecord = { method: req.method, path, ...(query ? { query } : {}), status: null, at: new Date().toISOString() };
    store.state.requests.push(record);
    records.set(req, record);
    const mode = o.outage();
    if (mode === '503') return send(req, reply, { status: 503, body: problem('ServicoIndisponivel') });
    if (mode === 'hang') {
      reply.hijack(); // accepted, never answered (the socket closes when the simulator stops)
      return reply;
    }
    if (mode === 'reset') {
      reply.hijack();
      req.raw.socket.destroy();
      return reply;
    }
  });
  app.addHook('onResponse', async (req, reply) => {
    const record = records.get(req);
    if (record) record.status = reply.statusCode; // saved with the next change; the log is for tests
  });

  app.post('/oauth/token', async (req, reply) => {
    const a = oauth.token(req.headers.authorization, req.headers['content-type'], typeof req.body === 'string' ? req.body : '');
    return reply.code(a.status).headers(a.headers).type('application/json').send(JSON.stringify(a.body));
  });

  for (const route of routes(o.psp, store)) {
    const url = toFastifyPath(route.path);
    docPathOf.set(url, route.path);
    const { op } = schemas.operation(route.method, route.path);
    const scopes: string[] = op.security?.[0]?.OAuth2 ?? [];
    app.route({
      method: route.method,
      url,
      handler: async (req, reply) => {
        const denied = oauth.check(req.headers.authorization, scopes);
        if (denied) return send(req, reply, { status: denied.problem.status, body: denied.problem, headers: denied.headers });

        const params = req.params as Record<string, string>;
        const query = req.query as Record<string, string | undefined>;
        const invalid = (violacoes: Violacao[]) => {
          store.violation({ side: 'request', method: req.method, path: req.url, errors: violacoes.map((v) => `${v.propriedade}: ${v.razao}`) });
          return send(req, reply, { status: 400, body: problem(route.invalid, undefined, violacoes) });
        };
        const paramViolations = schemas.validateParameters(route.method, route.path, { path: params, query });
        if (paramViolations.length) return invalid(paramViolations);

        let body: Json;
        if (route.body) {
          const raw = typeof req.body === 'string' ? req.body : '';
          if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
            return invalid([{ razao: 'O corpo da requisição deve ser application/json.', propriedade: route.body, valor: String(req.headers['content-type'] ?? '') }]);
          }
          try {
            body = JSON.parse(raw);
          } catch {
            return invalid([{ razao: 'O corpo da requisição não é JSON válido.', propriedade: route.body }]);
          }
          const violacoes = schemas.validateRequestBody(route.method, route.path, body, route.body);
          if (violacoes.length) return invalid(violacoes);
        }
        return send(req, reply, route.run({ params, query, body }));
      },
    });
  }

  app.setNotFoundHandler((req, reply) => send(req, reply, { status: 404, body: problem('NaoEncontrado', `${req.method} ${req.url.split('?')[0]} não existe neste PSP.`) }));
  app.setErrorHandler((err: { statusCode?: number; message: string }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? 400 : 500;
    return send(req, reply, { status, body: problem(status === 400 ? 'RequisicaoInvalida' : 'ErroInternoDoServidor', err.message) });
  });
  return app;
}

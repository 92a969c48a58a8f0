// Efí's Pix send API, as its public documentation describes it ("Enviar Pix", "Pix enviados";
// efipay/documentacao-tecnica-efi), on the simulator's API port beside the API Pix (same mTLS,
// same OAuth2 tokens; scopes pix.send and gn.pix.send.read):
//
//   PUT /v2/gn/pix/{idEnvio}                  {valor, pagador {chave, infoPagador}, favorecido
//                                             {chave [, cpf|cnpj]} | {contaBanco {nome, cpf|cnpj,
//                                             codigoBanco, agencia, conta, tipoConta}}} → 201
//                                             {idEnvio, e2eId, valor, horario, status}; refusals are
//                                             Efí's {nome, mensagem} (400 chave_invalida,
//                                             chave_nao_pertence_ao_documento, valor_invalido,
//                                             json_invalido; 409 id_envio_duplicado; 422
//                                             pagamento_negado)
//   GET /v2/gn/pix/enviados/id-envio/{idEnvio} the send: status EM_PROCESSAMENTO → REALIZADO or
//                                             NAO_REALIZADO (motivo), the beneficiary's document
//                                             masked, devolucoes the receiving bank made later
//   GET /v2/gn/pix/enviados?inicio&fim        the sends requested in the interval, paged
//                                             ({parametros {paginacao}, pix: [send]}): the day's
//                                             statement reads the sends made that day
//
// The receiving side is played through the control port (registerSendControl): the DICT's keys
// and their holders, the outcome of the next sends (made, not made with a reason, kept
// processing), refusals at the request, a send registered whose answer never leaves (a caller
// killed mid-send), a later return. Each change of a send is notified to the payer key's webhook
// (`{pix: [{endToEndId, chave, status, tipo: "SOLICITACAO", valor, horario, gnExtras: {idEnvio}}]}`)
// through the webhook sender's modes (delivered, dropped, duplicated). Kept in <dir>/sends.json.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { endToEndId, returnId } from './ids.ts';
import type { OAuth } from './oauth.ts';
import type { WebhookSender } from './webhooks.ts';

type Json = any;

export type SendStatus = 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';

export interface SendRecord {
  idEnvio: string;
  e2eId: string;
  valor: string;
  pagador: { chave: string; infoPagador?: string };
  favorecido: Json;
  status: SendStatus;
  motivo?: string;
  horario: { solicitacao: string; liquidacao?: string };
  devolucoes: Array<{ id: string; rtrId: string; valor: string; natureza: string; motivo?: string; status: 'DEVOLVIDO'; horario: { solicitacao: string; liquidacao: string } }>;
  /** How many PUTs named this idEnvio (the first registered it). */
  puts: number;
}

interface DictEntry {
  nome: string;
  cpf?: string;
  cnpj?: string;
}

interface SendsState {
  sends: Record<string, SendRecord>;
  dict: Record<string, DictEntry>;
  /** Accounts the receiving banks know: `${codigoBanco}|${agencia}|${conta}` → holder. */
  accounts: Record<string, DictEntry>;
}

export interface SendMood {
  /** What the next sends end as (default REALIZADO). */
  outcome: 'REALIZADO' | 'NAO_REALIZADO';
  /** The reason of NAO_REALIZADO (an SPI code and text, e.g. "AC03 conta inexistente"). */
  motivo: string;
  /** immediate: settled `delayMs` after the answer; manual: EM_PROCESSAMENTO until /control/sends/settle. */
  settle: 'immediate' | 'manual';
  delayMs: number;
  /** The next sends refused at the request with this answer, `count` times. */
  refuse: { status: number; nome: string; mensagem: string; count: number; headers?: Record<string, string> } | null;
  /** The next `n` sends are registered, and their answer never leaves (the caller sees a hang). */
  hang: number;
}

const defaultMood = (): SendMood => ({ outcome: 'REALIZADO', motivo: 'AC03 Conta do recebedor inexistente', settle: 'immediate', delayMs: 100, refuse: null, hang: 0 });

const ID_ENVIO = /^[a-zA-Z0-9]{1,35}$/;
const VALOR = /^\d{1,10}\.\d{2}$/;
const digits = (s: unknown) => String(s ?? '').replace(/\D/g, '');
const normKey = (k: string) => (k.includes('@') ? k.trim().toLowerCase() : /^[\d.\-/\s]+$/.test(k) ? digits(k) : k.trim().toLowerCase());
const accountKey = (codigoBanco: string, agencia: string, conta: string) => `${digits(codigoBanco)}|${digits(agencia).replace(/^0+/, '')}|${String(conta).replace(/[^0-9A-Za-z]/g, '').replace(/^0+/, '')}`;

/** The beneficiary's document as Efí shows it: "***.456.789-**", "**.345.678/0001-**". */
export function maskDocument(doc: { cpf?: string; cnpj?: string }): Json {
  if (doc.cpf) return { cpf: `***.${doc.cpf.slice(3, 6)}.${doc.cpf.slice(6, 9)}-**` };
  if (doc.cnpj) return { cnpj: `**.${doc.cnpj.slice(2, 5)}.${doc.cnpj.slice(5, 8)}/${doc.cnpj.slice(8, 12)}-**` };
  return {};
}

const efiError = (status: number, nome: string, mensagem: string) => ({ status, body: { nome, mensagem } });

export class Sends {
  state: SendsState;
  mood: SendMood = defaultMood();
  private readonly file: string;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(dir: string, private readonly webhooks: WebhookSender, private readonly payerKey: string) {
    this.file = join(dir, 'sends.json');
    this.state = existsSync(this.file) ? JSON.parse(readFileSync(this.file, 'utf8')) : { sends: {}, dict: {}, accounts: {} };
  }

  save(): void {
    const tmp = this.file + '.tmp';
    writeFileSync(tmp, JSON.stringify(this.state));
    renameSync(tmp, this.file);
  }

  reset(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.state = { sends: {}, dict: {}, accounts: {} };
    this.mood = defaultMood();
    this.save();
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** PUT /v2/gn/pix/{idEnvio}. `hang`: registered, the answer withheld. */
  put(idEnvio: string, raw: string, contentType: string | undefined): { status: number; body: Json; headers?: Record<string, string>; hang?: boolean } {
    if (!ID_ENVIO.test(idEnvio)) return efiError(400, 'json_invalido', 'O idEnvio deve respeitar o formato ^[a-zA-Z0-9]{1,35}$');
    if (!/^application\/json\b/i.test(contentType ?? '')) return efiError(400, 'json_invalido', 'O corpo deve ser application/json');
    let b: Json;
    try {
      b = JSON.parse(raw);
    } catch {
      return efiError(400, 'json_invalido', 'Valores ou tipos de campo inválidos');
    }
    const existing = this.state.sends[idEnvio];
    if (existing) {
      existing.puts++;
      this.save();
      return efiError(409, 'id_envio_duplicado', 'O id de envio informado já foi utilizado em outro pagamento');
    }
    if (typeof b !== 'object' || b === null || typeof b.valor !== 'string' || !VALOR.test(b.valor) || Number(b.valor) <= 0) {
      return efiError(400, 'valor_invalido', 'Campo valor deve ser um decimal positivo com duas casas');
    }
    const pagador = b.pagador;
    if (typeof pagador?.chave !== 'string') return efiError(400, 'json_invalido', 'Campo pagador.chave é obrigatório');
    if (normKey(pagador.chave) !== normKey(this.payerKey)) return efiError(400, 'chave_invalida', 'A chave informada não faz referência à conta Efí autenticada');
    if (pagador.infoPagador !== undefined && (typeof pagador.infoPagador !== 'string' || pagador.infoPagador.length > 140)) return efiError(400, 'json_invalido', 'Campo pagador.infoPagador inválido');
    const fav = b.favorecido;
    const byKey = typeof fav?.chave === 'string';
    const conta = fav?.contaBanco;
    if (byKey === (conta !== undefined)) return efiError(400, 'json_invalido', 'Informe favorecido.chave ou favorecido.contaBanco');
    let holder: DictEntry | undefined;
    if (byKey) {
      holder = this.state.dict[normKey(fav.chave)];
      if (!holder) return efiError(400, 'chave_invalida', 'A chave do favorecido não foi encontrada no DICT');
      const named = digits(fav.cpf ?? fav.cnpj);
      if ((fav.cpf !== undefined || fav.cnpj !== undefined) && named !== (holder.cpf ?? holder.cnpj)) {
        return efiError(400, 'chave_nao_pertence_ao_documento', 'O cpf do favorecido é diferente do documento em posse da chave');
      }
    } else {
      const ok = typeof conta === 'object' && conta !== null && typeof conta.nome === 'string' && conta.nome.trim() !== ''
        && (/^\d{11}$/.test(conta.cpf ?? '') || /^[0-9A-Z]{12}\d{2}$/.test(conta.cnpj ?? '')) && /^\d{8}$/.test(conta.codigoBanco ?? '')
        && /^\d{1,4}$/.test(conta.agencia ?? '') && /^[0-9A-Za-z]{1,20}$/.test(conta.conta ?? '') && ['cacc', 'svgs', 'slry', 'tran'].includes(conta.tipoConta);
      if (!ok) return efiError(400, 'json_invalido', 'Campo favorecido.contaBanco inválido');
    }
    const refuse = this.mood.refuse;
    if (refuse && refuse.count > 0) {
      refuse.count--;
      if (refuse.count === 0) this.mood.refuse = null;
      return { status: refuse.status, body: { nome: refuse.nome, mensagem: refuse.mensagem }, ...(refuse.headers ? { headers: refuse.headers } : {}) };
    }
    const now = new Date();
    const send: SendRecord = {
      idEnvio, e2eId: endToEndId(now), valor: b.valor, pagador: { chave: pagador.chave, ...(pagador.infoPagador ? { infoPagador: pagador.infoPagador } : {}) },
      favorecido: byKey
        ? { chave: fav.chave, identificacao: { nome: holder!.nome, ...maskDocument(holder!) } }
        : { contaBanco: { nome: conta.nome, ...maskDocument(conta), codigoBanco: conta.codigoBanco, agencia: conta.agencia, conta: conta.conta, tipoConta: conta.tipoConta } },
      status: 'EM_PROCESSAMENTO', horario: { solicitacao: now.toISOString() }, devolucoes: [], puts: 1,
    };
    // The receiving bank's answer: an account it knows under another holder is refused (BE01).
    const known = byKey ? undefined : this.state.accounts[accountKey(conta.codigoBanco, conta.agencia, conta.conta)];
    const wrongHolder = known && (known.cpf ?? known.cnpj) !== (conta.cpf ?? conta.cnpj);
    this.state.sends[idEnvio] = send;
    this.save();
    if (wrongHolder) this.later(idEnvio, 'NAO_REALIZADO', 'BE01 Documento do recebedor diferente do titular da conta');
    else if (this.mood.settle === 'immediate') this.later(idEnvio, this.mood.outcome, this.mood.motivo);
    const answer = { status: 201, body: { idEnvio, e2eId: send.e2eId, valor: send.valor, horario: { solicitacao: send.horario.solicitacao }, status: send.status } };
    if (this.mood.hang > 0) {
      this.mood.hang--;
      return { ...answer, hang: true };
    }
    return answer;
  }

  /**
   * GET /v2/gn/pix/enviados?inicio&fim: the sends requested in [inicio, fim] (RFC 3339), paged
   * (paginacao.paginaAtual, paginacao.itensPorPagina), as Efí lists them.
   */
  list(q: Record<string, unknown>): { status: number; body: Json } {
    const inicio = new Date(String(q.inicio ?? ''));
    const fim = new Date(String(q.fim ?? ''));
    const page = Number(q['paginacao.paginaAtual'] ?? 0);
    const perPage = Number(q['paginacao.itensPorPagina'] ?? 100);
    if (Number.isNaN(inicio.getTime()) || Number.isNaN(fim.getTime()) || fim < inicio || !Number.isInteger(page) || page < 0 || !Number.isInteger(perPage) || perPage < 1 || perPage > 1000) {
      return { status: 400, body: { type: 'https://pix.bcb.gov.br/api/v2/error/ConsultaInvalida', title: 'Consulta inválida', status: 400, detail: 'inicio e fim (RFC 3339, fim não anterior a inicio) e a paginação devem ser válidos.' } };
    }
    const all = Object.values(this.state.sends)
      .filter((x) => {
        const t = new Date(x.horario.solicitacao);
        return t >= inicio && t <= fim;
      })
      .sort((a, b) => a.horario.solicitacao.localeCompare(b.horario.solicitacao) || a.idEnvio.localeCompare(b.idEnvio));
    return {
      status: 200,
      body: {
        parametros: { inicio: q.inicio, fim: q.fim, paginacao: { paginaAtual: page, itensPorPagina: perPage, quantidadeDePaginas: Math.max(1, Math.ceil(all.length / perPage)), quantidadeTotalDeItens: all.length } },
        pix: all.slice(page * perPage, (page + 1) * perPage).map((x) => this.view(x)),
      },
    };
  }

  /** GET /v2/gn/pix/enviados/id-envio/{idEnvio}: the send as Efí shows it. */
  get(idEnvio: string): { status: number; body: Json } {
    const s = this.state.sends[idEnvio];
    if (!s) {
      return { status: 404, body: { type: 'https://pix.bcb.gov.br/api/v2/error/PixEnviadoNaoEncontrado', title: 'Não Encontrado', status: 404, detail: 'Pix enviado não encontrado para o idEnvio informado.' } };
    }
    return { status: 200, body: this.view(s) };
  }

  view(s: SendRecord): Json {
    const fav = s.favorecido.contaBanco ? { contaBanco: { ...s.favorecido.contaBanco, codigoBanco: undefined } } : s.favorecido;
    return {
      endToEndId: s.e2eId, idEnvio: s.idEnvio, valor: s.valor, chave: s.pagador.chave, status: s.status,
      ...(s.pagador.infoPagador ? { infoPagador: s.pagador.infoPagador } : {}),
      ...(s.motivo ? { motivo: s.motivo } : {}),
      horario: s.horario, favorecido: JSON.parse(JSON.stringify(fav)),
      ...(s.devolucoes.length ? { devolucoes: s.devolucoes } : {}),
    };
  }

  private later(idEnvio: string, outcome: 'REALIZADO' | 'NAO_REALIZADO', motivo: string): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.settle(idEnvio, outcome, motivo);
    }, this.mood.delayMs);
    this.timers.add(t);
  }

  /** A processing send made or not made; notified. False when it is not processing. */
  settle(idEnvio: string, outcome: 'REALIZADO' | 'NAO_REALIZADO', motivo?: string): boolean {
    const s = this.state.sends[idEnvio];
    if (!s || s.status !== 'EM_PROCESSAMENTO') return false;
    s.status = outcome;
    if (outcome === 'REALIZADO') s.horario.liquidacao = new Date().toISOString();
    else s.motivo = motivo ?? this.mood.motivo;
    this.save();
    this.notify(s);
    return true;
  }

  /** The receiving bank sends a made Pix back (all of it unless `valor`); notified. */
  returnSend(idEnvio: string, valor?: string, motivo = 'MD06 Devolução solicitada pelo recebedor'): Json | null {
    const s = this.state.sends[idEnvio];
    if (!s || s.status !== 'REALIZADO') return null;
    const now = new Date().toISOString();
    const d = { id: `D${s.devolucoes.length + 1}`, rtrId: returnId(new Date(), '99999004'), valor: valor ?? s.valor, natureza: 'ORIGINAL', motivo, status: 'DEVOLVIDO' as const, horario: { solicitacao: now, liquidacao: now } };
    s.devolucoes.push(d);
    this.save();
    this.notify(s);
    return d;
  }

  private notify(s: SendRecord): void {
    const entry = {
      endToEndId: s.e2eId, chave: s.pagador.chave, status: s.status, tipo: 'SOLICITACAO', valor: s.valor,
      horario: s.horario.liquidacao ?? s.horario.solicitacao,
      gnExtras: { idEnvio: s.idEnvio, ...(s.motivo ? { erro: { motivo: s.motivo } } : {}) },
      ...(s.devolucoes.length ? { devolucoes: s.devolucoes } : {}),
    };
    this.webhooks.notify(s.pagador.chave, [entry], { validate: false });
  }
}

/** The send API's routes on the API port (mTLS, OAuth2 scopes pix.send / gn.pix.send.read). */
export function registerSendRoutes(app: FastifyInstance, o: { oauth: OAuth; sends: Sends }): void {
  const deny = (authorization: string | undefined, scope: string) => o.oauth.check(authorization, [scope]);
  app.put('/v2/gn/pix/:idEnvio', async (req, reply) => {
    const denied = deny(req.headers.authorization, 'pix.send');
    if (denied) return reply.code(denied.problem.status).headers(denied.headers).type('application/problem+json').send(JSON.stringify(denied.problem));
    const a = o.sends.put((req.params as { idEnvio: string }).idEnvio, typeof req.body === 'string' ? req.body : '', req.headers['content-type']);
    if (a.hang) {
      reply.hijack(); // registered; the answer never leaves (the socket closes when the simulator stops)
      return reply;
    }
    return reply.code(a.status).headers(a.headers ?? {}).type('application/json').send(JSON.stringify(a.body));
  });
  app.get('/v2/gn/pix/enviados', async (req, reply) => {
    const denied = deny(req.headers.authorization, 'gn.pix.send.read');
    if (denied) return reply.code(denied.problem.status).headers(denied.headers).type('application/problem+json').send(JSON.stringify(denied.problem));
    const a = o.sends.list((req.query ?? {}) as Record<string, unknown>);
    return reply.code(a.status).type(a.status === 200 ? 'application/json' : 'application/problem+json').send(JSON.stringify(a.body));
  });
  app.get('/v2/gn/pix/enviados/id-envio/:idEnvio', async (req, reply) => {
    const denied = deny(req.headers.authorization, 'gn.pix.send.read');
    if (denied) return reply.code(denied.problem.status).headers(denied.headers).type('application/problem+json').send(JSON.stringify(denied.problem));
    const a = o.sends.get((req.params as { idEnvio: string }).idEnvio);
    return reply.code(a.status).type(a.status === 200 ? 'application/json' : 'application/problem+json').send(JSON.stringify(a.body));
  });
}

/** The receiving side and the PSP's moods for sends, on the control port (tests only). */
export function registerSendControl(app: FastifyInstance, sends: Sends): void {
  const bad = (error: string) => ({ error });
  app.post('/control/dict', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    if (typeof b.chave !== 'string' || typeof b.nome !== 'string' || (typeof b.cpf !== 'string' && typeof b.cnpj !== 'string')) return reply.code(400).send(bad('chave, nome and cpf or cnpj'));
    sends.state.dict[normKey(b.chave)] = { nome: b.nome, ...(b.cpf ? { cpf: digits(b.cpf) } : { cnpj: String(b.cnpj) }) };
    sends.save();
    return { registered: b.chave };
  });
  app.post('/control/accounts', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    if (![b.codigoBanco, b.agencia, b.conta, b.nome].every((v) => typeof v === 'string') || (typeof b.cpf !== 'string' && typeof b.cnpj !== 'string')) return reply.code(400).send(bad('codigoBanco, agencia, conta, nome and cpf or cnpj'));
    sends.state.accounts[accountKey(b.codigoBanco, b.agencia, b.conta)] = { nome: b.nome, ...(b.cpf ? { cpf: digits(b.cpf) } : { cnpj: String(b.cnpj) }) };
    sends.save();
    return { registered: true };
  });
  app.post('/control/sends/mood', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    const m = sends.mood;
    if (b.outcome !== undefined) {
      if (b.outcome !== 'REALIZADO' && b.outcome !== 'NAO_REALIZADO') return reply.code(400).send(bad('outcome: REALIZADO | NAO_REALIZADO'));
      m.outcome = b.outcome;
    }
    if (b.motivo !== undefined) m.motivo = String(b.motivo);
    if (b.settle !== undefined) {
      if (b.settle !== 'immediate' && b.settle !== 'manual') return reply.code(400).send(bad('settle: immediate | manual'));
      m.settle = b.settle;
    }
    if (b.delayMs !== undefined) m.delayMs = Math.max(0, Number(b.delayMs) || 0);
    if (b.hang !== undefined) m.hang = Math.max(0, Number(b.hang) || 0);
    if (b.refuse !== undefined) {
      const r = b.refuse;
      m.refuse = r === null ? null : { status: Number(r.status), nome: String(r.nome), mensagem: String(r.mensagem ?? ''), count: Number(r.count ?? 1), ...(r.headers ? { headers: r.headers } : {}) };
    }
    return m;
  });
  app.post('/control/sends/settle', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    const outcome = b.outcome ?? 'REALIZADO';
    if (outcome !== 'REALIZADO' && outcome !== 'NAO_REALIZADO') return reply.code(400).send(bad('outcome: REALIZADO | NAO_REALIZADO'));
    const ids = typeof b.idEnvio === 'string' ? [b.idEnvio] : Object.keys(sends.state.sends);
    return { settled: ids.filter((id) => sends.settle(id, outcome, b.motivo)).length };
  });
  app.post('/control/sends/return', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    if (typeof b.idEnvio !== 'string') return reply.code(400).send(bad('idEnvio is required'));
    const d = sends.returnSend(b.idEnvio, typeof b.valor === 'string' ? b.valor : undefined, typeof b.motivo === 'string' ? b.motivo : undefined);
    return d ? d : reply.code(404).send(bad('no REALIZADO send with this idEnvio'));
  });
  app.get('/control/sends', async () => Object.values(sends.state.sends).map((s) => ({ ...sends.view(s), puts: s.puts })));
  app.post('/control/sends/reset', async () => {
    sends.reset();
    return { reset: true };
  });
}

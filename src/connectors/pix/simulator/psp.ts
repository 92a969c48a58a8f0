// What the simulated PSP does, apart from HTTP: charges (cob) and their revisions, payments
// into them, devoluções and their settlement, and the listing of received Pix. Every operation
// answers `{status, body}`: a body in the API Pix's shapes, or a problem.
import { randomBytes } from 'node:crypto';
import { isValidCnpj, isValidCpf } from '../../../domain/pix.ts';
import { dynamicBrCode } from './brcode.ts';
import { endToEndId, returnId, rfc3339 } from './ids.ts';
import { problem, problemForStatus, type ProblemType } from './problems.ts';
import type { Violacao } from './schema.ts';
import type { Cob, Devolucao, DevolucaoStatus, PixRecord, Store } from './store.ts';
import type { WebhookSender } from './webhooks.ts';

type Json = any;

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Receiver {
  pixKey: string;
  /** CNPJ of the receiving user (answered in GET /webhook). */
  cnpj: string;
  /** ISPB of the simulated receiving PSP (in devolução return ids). */
  ispb: string;
  merchantName: string;
  merchantCity: string;
}

const fail = (type: ProblemType, detail?: string, violacoes?: Violacao[]): Answer => {
  const body = problem(type, detail, violacoes);
  return { status: body.status, body };
};

/** "10.50" → 1050n; amounts are always two-decimal strings once past schema validation. */
const cents = (valor: string) => BigInt(valor.replace('.', ''));
const fromCents = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;

export class Psp {
  devolucaoOutcome: Exclude<DevolucaoStatus, 'EM_PROCESSAMENTO'> = 'DEVOLVIDO';
  devolucaoSettle: 'manual' | 'immediate' = 'manual';
  failNextCob: { status: number; count: number; detail?: string } | null = null;

  constructor(
    private readonly store: Store,
    readonly receiver: Receiver,
    private readonly webhooks: WebhookSender,
    /** Payload locations are `<base>/<id>`, e.g. `localhost:8443/qr/v2` (set once the API listens). */
    private readonly location: { base: string },
  ) {}

  private get s() {
    return this.store.state;
  }

  // ---- charges ----------------------------------------------------------------------------

  cobView(cob: Cob): Json {
    const view: Json = {
      calendario: { ...cob.calendario },
      txid: cob.txid,
      revisao: cob.revisao,
      loc: { id: cob.loc.id, txid: cob.txid, location: cob.loc.location, tipoCob: cob.loc.tipoCob, criacao: cob.loc.criacao },
      location: cob.location,
      status: cob.status,
    };
    if (cob.devedor) view.devedor = cob.devedor;
    view.valor = cob.valor;
    view.chave = cob.chave;
    if (cob.solicitacaoPagador !== undefined) view.solicitacaoPagador = cob.solicitacaoPagador;
    if (cob.infoAdicionais) view.infoAdicionais = cob.infoAdicionais;
    view.pixCopiaECola = cob.pixCopiaECola;
    if (cob.pix.length) view.pix = cob.pix.map((e2e) => this.pixView(this.s.pix[e2e]!));
    return view;
  }

  /** Semantic checks the schema cannot make (the document's CobOperacaoInvalida violations). */
  private cobViolations(body: Json): Violacao[] {
    const out: Violacao[] = [];
    if (body.chave !== undefined && body.chave !== this.receiver.pixKey) {
      out.push({ razao: 'O campo cob.chave corresponde a uma conta que não pertence a este usuário recebedor.', propriedade: 'cob.chave', valor: String(body.chave) });
    }
    const exp = body.calendario?.expiracao;
    if (exp !== undefined && exp <= 0) {
      out.push({ razao: 'O campo cob.calendario.expiracao é igual ou menor que zero.', propriedade: 'cob.calendario.expiracao', valor: String(exp) });
    }
    const original = body.valor?.original;
    if (original !== undefined && cents(original) === 0n) {
      out.push({ razao: 'O campo cob.valor.original é zero.', propriedade: 'cob.valor.original', valor: original });
    }
    const d = body.devedor;
    if (d && ((d.cpf !== undefined && !isValidCpf(d.cpf)) || (d.cnpj !== undefined && !isValidCnpj(d.cnpj)))) {
      out.push({ razao: 'O objeto cob.devedor não respeita o schema (CPF ou CNPJ inválido).', propriedade: 'cob.devedor', valor: String(d.cpf ?? d.cnpj) });
    }
    if (body.loc !== undefined) {
      out.push({ razao: 'O location referenciado por loc.id inexiste.', propriedade: 'cob.loc.id', valor: String(body.loc?.id) });
    }
    return out;
  }

  private brCode(cob: Cob): string {
    return dynamicBrCode({
      location: cob.location,
      merchantName: this.receiver.merchantName,
      merchantCity: this.receiver.merchantCity,
      amount: cob.valor?.modalidadeAlteracao === 1 ? undefined : cob.valor.original,
    });
  }

  private revise(cob: Cob, fields: Json): void {
    if (fields.calendario?.expiracao !== undefined) cob.calendario.expiracao = fields.calendario.expiracao;
    if (fields.devedor !== undefined) cob.devedor = fields.devedor;
    if (fields.valor !== undefined) cob.valor = { ...cob.valor, ...fields.valor };
    if (fields.chave !== undefined) cob.chave = fields.chave;
    if (fields.solicitacaoPagador !== undefined) cob.solicitacaoPagador = fields.solicitacaoPagador;
    if (fields.infoAdicionais !== undefined) cob.infoAdicionais = fields.infoAdicionais;
    cob.pixCopiaECola = this.brCode(cob);
  }

  /** PUT /cob/{txid}: creates the charge, or revises it while ATIVA. `body` has passed the schema. */
  putCob(txid: string, body: Json): Answer {
    if (this.failNextCob && this.failNextCob.count > 0) {
      const { status, detail } = this.failNextCob;
      if (--this.failNextCob.count <= 0) this.failNextCob = null;
      const p = problemForStatus(status, detail);
      return { status, body: p };
    }
    const violacoes = this.cobViolations(body);
    if (violacoes.length) return fail('CobOperacaoInvalida', undefined, violacoes);
    const existing = this.s.cobs[txid];
    if (existing) {
      if (existing.status !== 'ATIVA') {
        return fail('CobOperacaoInvalida', `A cobrança ${txid} já existe e não está ATIVA (${existing.status}); não pode ser alterada.`);
      }
      const before = JSON.stringify(this.cobView(existing));
      this.revise(existing, body);
      if (JSON.stringify(this.cobView(existing)) !== before) {
        existing.revisao++;
        existing.revisoes.push(this.cobView(existing));
      }
      this.store.save();
      return { status: 201, body: this.cobView(existing) };
    }
    const now = rfc3339(new Date());
    const locId = this.s.nextLocId++;
    // Without scheme, as BR Code field 25 carries it and as the document's examples show it
    // ("pix.example.com/qr/v2/…"); `localhost:<port>` reads as a scheme, so it is a valid `uri`.
    const location = `${this.location.base}/${randomBytes(16).toString('hex')}`;
    const cob: Cob = {
      txid,
      revisao: 0,
      status: 'ATIVA',
      calendario: { criacao: now, expiracao: body.calendario?.expiracao ?? 86400 },
      loc: { id: locId, location, tipoCob: 'cob', criacao: now },
      location,
      valor: body.valor,
      chave: body.chave,
      pixCopiaECola: '',
      pix: [],
      revisoes: [],
    };
    if (body.devedor) cob.devedor = body.devedor;
    if (body.solicitacaoPagador !== undefined) cob.solicitacaoPagador = body.solicitacaoPagador;
    if (body.infoAdicionais) cob.infoAdicionais = body.infoAdicionais;
    cob.pixCopiaECola = this.brCode(cob);
    cob.revisoes.push(this.cobView(cob));
    this.s.cobs[txid] = cob;
    this.store.save();
    return { status: 201, body: this.cobView(cob) };
  }

  /** PATCH /cob/{txid}: revises an ATIVA charge, or removes it (status REMOVIDA_PELO_USUARIO_RECEBEDOR). */
  patchCob(txid: string, body: Json): Answer {
    const cob = this.s.cobs[txid];
    if (!cob) return fail('CobNaoEncontrado');
    if (cob.status !== 'ATIVA') {
      return fail('CobOperacaoInvalida', `A cobrança não está ATIVA (${cob.status}); somente cobranças ativas podem ser revisadas.`);
    }
    const { status, ...rest } = body;
    if (status !== undefined && Object.keys(rest).length) {
      return fail('CobOperacaoInvalida', 'A remoção da cobrança não pode vir acompanhada de outras alterações.', [
        { razao: 'A cobrança está ATIVA, e a requisição propõe alterar seu status para REMOVIDA_PELO_USUARIO_RECEBEDOR juntamente com outras alterações.', propriedade: 'cob.status' },
      ]);
    }
    const violacoes = this.cobViolations(rest);
    if (violacoes.length) return fail('CobOperacaoInvalida', undefined, violacoes);
    if (status !== undefined) cob.status = status;
    else this.revise(cob, rest);
    cob.revisao++;
    cob.revisoes.push(this.cobView(cob));
    this.store.save();
    return { status: 200, body: this.cobView(cob) };
  }

  getCob(txid: string, revisao?: number): Answer {
    const cob = this.s.cobs[txid];
    if (!cob) return fail('CobNaoEncontrado');
    if (revisao === undefined || revisao === cob.revisao) return { status: 200, body: this.cobView(cob) };
    const old = cob.revisoes.find((r) => r.revisao === revisao);
    if (!old) {
      return fail('CobConsultaInvalida', undefined, [{ razao: 'O parâmetro revisao corresponde a uma revisão inexistente para a cobrança.', propriedade: 'revisao', valor: String(revisao) }]);
    }
    return { status: 200, body: old };
  }

  /** Moves an ATIVA charge to REMOVIDA_PELO_PSP (what a PSP does when it gives up on one). */
  removeByPsp(txid: string): Answer {
    const cob = this.s.cobs[txid];
    if (!cob) return fail('CobNaoEncontrado');
    if (cob.status !== 'ATIVA') return fail('CobOperacaoInvalida', `A cobrança não está ATIVA (${cob.status}).`);
    cob.status = 'REMOVIDA_PELO_PSP';
    cob.revisao++;
    cob.revisoes.push(this.cobView(cob));
    this.store.save();
    return { status: 200, body: this.cobView(cob) };
  }

  // ---- payments -----------------------------------------------------------------------------

  pixView(p: PixRecord): Json {
    const view: Json = { endToEndId: p.endToEndId };
    if (p.txid !== undefined) view.txid = p.txid;
    view.valor = p.valor;
    view.componentesValor = { original: { valor: p.valor } };
    view.chave = p.chave;
    view.horario = p.horario;
    if (p.infoPagador !== undefined) view.infoPagador = p.infoPagador;
    if (p.devolucoes.length) view.devolucoes = p.devolucoes.map((d) => ({ ...d, horario: { ...d.horario } }));
    // Efí's extension: who paid (a PSP that does not report the payer leaves it out).
    if (p.pagador) view.gnExtras = { pagador: { ...p.pagador } };
    return view;
  }

  /**
   * A payer pays the charge: by default its original amount, now. An expired charge is paid all
   * the same (a late payment); a removed one only with `force`; a concluded one never.
   */
  pay(txid: string, opts: { valor?: string; horario?: string; infoPagador?: string; force?: boolean; pagador?: PixRecord['pagador'] } = {}): Answer {
    const cob = this.s.cobs[txid];
    if (!cob) return { status: 404, body: { error: `no cob ${txid}` } };
    if (cob.status === 'CONCLUIDA') return { status: 409, body: { error: `cob ${txid} is already CONCLUIDA` } };
    if (cob.status !== 'ATIVA' && !opts.force) return { status: 409, body: { error: `cob ${txid} is ${cob.status}; pass force: true to pay it anyway` } };
    const pix = this.receive({ ...opts, valor: opts.valor ?? cob.valor.original, txid, chave: cob.chave });
    if ('status' in pix) return pix;
    cob.status = 'CONCLUIDA';
    cob.pix.push(pix.endToEndId);
    this.store.save();
    this.webhooks.notify(cob.chave, [this.pixView(pix)]);
    return { status: 200, body: { endToEndId: pix.endToEndId, pix: this.pixView(pix) } };
  }

  /**
   * A payer sends a Pix straight to the key, with no charge (no txid): it shows in GET /pix but,
   * as the document says of the callback, no webhook is sent for it.
   */
  payKey(opts: { valor?: string; horario?: string; infoPagador?: string; pagador?: PixRecord['pagador'] }): Answer {
    if (opts.valor === undefined) return { status: 400, body: { error: 'valor is required to pay the key without a txid' } };
    const pix = this.receive({ ...opts, valor: opts.valor, chave: this.receiver.pixKey });
    if ('status' in pix) return pix;
    this.store.save();
    return { status: 200, body: { endToEndId: pix.endToEndId, pix: this.pixView(pix) } };
  }

  private receive(o: { valor: string; chave: string; txid?: string; horario?: string; infoPagador?: string; pagador?: PixRecord['pagador'] }): PixRecord | Answer {
    if (!/^\d{1,10}\.\d{2}$/.test(o.valor)) return { status: 400, body: { error: 'valor must look like 10.50' } };
    const at = o.horario ? new Date(o.horario) : new Date();
    if (Number.isNaN(at.getTime())) return { status: 400, body: { error: 'horario must be an RFC 3339 date-time' } };
    const pix: PixRecord = { endToEndId: endToEndId(at), valor: o.valor, chave: o.chave, horario: rfc3339(at), devolucoes: [] };
    if (o.txid !== undefined) pix.txid = o.txid;
    if (o.infoPagador !== undefined) pix.infoPagador = o.infoPagador;
    if (o.pagador !== undefined) pix.pagador = o.pagador;
    this.s.pix[pix.endToEndId] = pix;
    return pix;
  }

  getPix(e2eid: string): Answer {
    const p = this.s.pix[e2eid];
    return p ? { status: 200, body: this.pixView(p) } : fail('PixNaoEncontrado');
  }

  /** GET /pix; `q` holds the query parameters, already checked against the document's schemas. */
  listPix(q: Record<string, string | undefined>): Answer {
    const inicio = new Date(q.inicio!);
    const fim = new Date(q.fim!);
    if (fim < inicio) {
      return fail('PixConsultaInvalida', undefined, [{ razao: 'O timestamp representado pelo parâmetro fim é anterior ao timestamp representado pelo parâmetro inicio.', propriedade: 'fim', valor: q.fim! }]);
    }
    if (q.cpf && q.cnpj) {
      return fail('PixConsultaInvalida', undefined, [{ razao: 'Ambos os parâmetros cpf e cnpj estão preenchidos.', propriedade: 'cpf' }]);
    }
    const page = Number(q['paginacao.paginaAtual'] ?? 0);
    const perPage = Number(q['paginacao.itensPorPagina'] ?? 100);
    const bool = (v: string | undefined) => (v === undefined ? undefined : v === 'true');
    const txIdPresente = bool(q.txIdPresente);
    const devolucaoPresente = bool(q.devolucaoPresente);
    const all = Object.values(this.s.pix)
      .filter((p) => {
        const t = new Date(p.horario);
        if (t < inicio || t > fim) return false;
        if (q.txid !== undefined && p.txid !== q.txid) return false;
        if (txIdPresente !== undefined && (p.txid !== undefined) !== txIdPresente) return false;
        if (devolucaoPresente !== undefined && p.devolucoes.length > 0 !== devolucaoPresente) return false;
        return true;
      })
      .sort((a, b) => a.horario.localeCompare(b.horario) || a.endToEndId.localeCompare(b.endToEndId));
    const parametros: Json = { inicio: q.inicio, fim: q.fim };
    for (const k of ['txid', 'cpf', 'cnpj'] as const) if (q[k] !== undefined) parametros[k] = q[k];
    if (txIdPresente !== undefined) parametros.txIdPresente = txIdPresente;
    if (devolucaoPresente !== undefined) parametros.devolucaoPresente = devolucaoPresente;
    parametros.paginacao = {
      paginaAtual: page,
      itensPorPagina: perPage,
      quantidadeDePaginas: Math.max(1, Math.ceil(all.length / perPage)),
      quantidadeTotalDeItens: all.length,
    };
    const pix = all.slice(page * perPage, (page + 1) * perPage).map((p) => this.pixView(p));
    return { status: 200, body: { parametros, pix } };
  }

  // ---- devoluções ---------------------------------------------------------------------------

  putDevolucao(e2eid: string, id: string, body: Json): Answer {
    const pix = this.s.pix[e2eid];
    if (!pix) return fail('PixNaoEncontrado');
    const natureza = body.natureza ?? 'ORIGINAL';
    const existing = pix.devolucoes.find((d) => d.id === id);
    if (existing) {
      if (existing.valor === body.valor && existing.natureza === natureza && existing.descricao === body.descricao) {
        return { status: 201, body: { ...existing } }; // the same request again: PUT is idempotent
      }
      return fail('PixDevolucaoInvalida', undefined, [{ razao: `A requisição de devolução apresenta um id (${id}) já utilizado por outra requisição de devolução para este e2eid.`, propriedade: 'id', valor: id }]);
    }
    if (natureza !== 'ORIGINAL') {
      return fail('PixDevolucaoInvalida', undefined, [{ razao: 'Este Pix não tem valor de saque ou troco; somente a natureza ORIGINAL se aplica.', propriedade: 'devolucao.natureza', valor: natureza }]);
    }
    const asked = cents(body.valor);
    if (asked === 0n) return fail('PixDevolucaoInvalida', undefined, [{ razao: 'O campo devolucao.valor é zero.', propriedade: 'devolucao.valor', valor: body.valor }]);
    const returned = pix.devolucoes.filter((d) => d.status !== 'NAO_REALIZADO').reduce((sum, d) => sum + cents(d.valor), 0n);
    if (returned + asked > cents(pix.valor)) {
      return fail('PixDevolucaoInvalida', undefined, [
        {
          razao: `A devolução, com as anteriores (${fromCents(returned)}), excederia o valor do pix originário (${pix.valor}).`,
          propriedade: 'devolucao.valor',
          valor: body.valor,
        },
      ]);
    }
    const d: Devolucao = {
      id,
      rtrId: returnId(new Date(), this.receiver.ispb),
      valor: body.valor,
      natureza,
      horario: { solicitacao: rfc3339(new Date()) },
      status: 'EM_PROCESSAMENTO',
    };
    if (body.descricao !== undefined) d.descricao = body.descricao;
    pix.devolucoes.push(d);
    this.store.save();
    const answer: Answer = { status: 201, body: { ...d, horario: { ...d.horario } } };
    if (this.devolucaoSettle === 'immediate') setImmediate(() => this.settle(e2eid, id));
    return answer;
  }

  getDevolucao(e2eid: string, id: string): Answer {
    const d = this.s.pix[e2eid]?.devolucoes.find((x) => x.id === id);
    return d ? { status: 200, body: { ...d, horario: { ...d.horario } } } : fail('PixDevolucaoNaoEncontrada');
  }

  /** Ends one devolução EM_PROCESSAMENTO with the configured outcome, and notifies the webhook. */
  settle(e2eid: string, id: string): boolean {
    const pix = this.s.pix[e2eid];
    const d = pix?.devolucoes.find((x) => x.id === id);
    if (!pix || !d || d.status !== 'EM_PROCESSAMENTO') return false;
    d.status = this.devolucaoOutcome;
    if (d.status === 'DEVOLVIDO') d.horario.liquidacao = rfc3339(new Date());
    else d.motivo = 'Devolução não realizada pelo PSP do pagador (simulado): conta do pagador encerrada.';
    this.store.save();
    this.webhooks.notify(pix.chave, [this.pixView(pix)]);
    return true;
  }

  settleAll(): number {
    let n = 0;
    for (const d of this.store.devolucoes()) if (d.status === 'EM_PROCESSAMENTO' && this.settle(d.endToEndId, d.id)) n++;
    return n;
  }
}

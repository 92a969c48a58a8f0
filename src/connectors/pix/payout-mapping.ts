// Pure rules of Pix payouts through Efí's send API ("Enviar Pix", "Pix enviados";
// docs/connectors.md "Pix payouts"): the idEnvio, the send body built from a cashout, what each
// answer of PUT /gn/pix/{idEnvio} means, the state of a send read back with
// GET /gn/pix/enviados/id-envio/{idEnvio}, and whether a send found is the cashout's.
import type { RejectionCode } from '../../domain/cashout-states.ts';
import { findBank } from '../../domain/banks.ts';
import { normalizeAccountType } from '../../domain/bank-accounts.ts';
import { add, cmp, dec, type Decimal, isPositive, parseAmount, toFixed } from '../../domain/money.ts';
import { newReference } from '../../domain/references.ts';
import type { OrderSendResult, OrderState, PayoutOrder } from '../payout.ts';
import { sameKey } from './mapping.ts';

/** A fresh idEnvio ([a-zA-Z0-9]{1,35}): random (src/domain/references.ts), stored before the send. */
export function newIdEnvio(): string {
  return newReference('caja', 35);
}

export const ID_ENVIO = /^[a-zA-Z0-9]{1,35}$/;

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const digits = (s: string) => s.replace(/\D/g, '');
/** Account and branch numbers compare without punctuation and leading zeros. */
const sameNumber = (a: string, b: string) => digits(a).replace(/^0+/, '') === digits(b).replace(/^0+/, '');

/** Efí's account types of contaBanco.tipoConta (the Pix account types of the DICT). */
export function tipoConta(accountType: string | null): 'cacc' | 'svgs' | 'slry' {
  const t = accountType ? normalizeAccountType(accountType) : null;
  if (t === 'SAVING' || t === 'SAVING_SET') return 'svgs';
  if (t === 'VISTA') return 'slry';
  return 'cacc';
}

/** The beneficiary's document as Efí names it: cpf (11 digits) or cnpj (14). */
export function documentField(documentId: string): { cpf: string } | { cnpj: string } | null {
  const d = documentId.replace(/[.\-/\s]/g, '').toUpperCase();
  if (/^\d{11}$/.test(d)) return { cpf: d };
  if (/^[0-9A-Z]{12}\d{2}$/.test(d)) return { cnpj: d };
  return null;
}

export type SendBody = { ok: true; body: Json; by: 'key' | 'account' } | { ok: false; code: RejectionCode; reason: string };

/**
 * The body of PUT /gn/pix/{idEnvio}: to the beneficiary's Pix key when the cashout names one
 * (with its document when the merchant asked for an owner-checked send: Efí refuses a key not
 * held by it), else to its bank account (contaBanco, which always names the holder's document:
 * the receiving bank refuses an account the document does not hold). A cashout that cannot be
 * sent at all is refused with its code, nothing sent.
 */
export function sendBody(order: PayoutOrder, payer: { key: string; info?: string | null }): SendBody {
  if (order.currency !== 'BRL') return { ok: false, code: '802', reason: `a Pix is sent in BRL, not ${order.currency}` };
  const amount = parseAmount(order.amount, { maxDecimals: 2 });
  if (!amount.ok || !isPositive(amount.value)) {
    return { ok: false, code: '802', reason: `amount ${order.amount} cannot be sent` };
  }
  const doc = documentField(order.documentId);
  const pagador: Json = { chave: payer.key, ...(payer.info ? { infoPagador: payer.info.slice(0, 140) } : {}) };
  const valor = toFixed(amount.value, 2);
  if (order.pixKey) {
    if (order.ownerCheck && !doc) return { ok: false, code: '805', reason: 'the beneficiary document is neither a CPF nor a CNPJ: the key\'s holder cannot be checked' };
    const favorecido: Json = { chave: order.pixKey, ...(order.ownerCheck ? doc : {}) };
    return { ok: true, by: 'key', body: { valor, pagador, favorecido } };
  }
  if (!doc) return { ok: false, code: '805', reason: 'the beneficiary document is neither a CPF nor a CNPJ' };
  const bank = order.bankCode ? findBank('BR', order.bankCode) : undefined;
  if (!bank?.ispb) return { ok: false, code: '803', reason: `bank ${order.bankCode ?? '(none)'} has no ISPB in the bank registry` };
  const agencia = digits(order.bankBranch ?? '');
  if (!agencia) return { ok: false, code: '804', reason: 'the cashout has no bank branch (agência)' };
  const conta = order.bankAccount.replace(/[^0-9A-Za-z]/g, '');
  if (!conta) return { ok: false, code: '800', reason: 'the cashout has no account number' };
  const contaBanco: Json = {
    nome: order.beneficiaryName.slice(0, 200),
    ...doc,
    codigoBanco: bank.ispb,
    agencia: agencia.replace(/^0+(?=\d)/, ''),
    conta,
    tipoConta: tipoConta(order.accountType),
  };
  return { ok: true, by: 'account', body: { valor, pagador, favorecido: { contaBanco } } };
}

/**
 * What Efí's refusal of a send (`{nome, mensagem}`, documented in "Enviar Pix") means. `retry`:
 * the operator's side (its payer key, its blocked document, its balance) or the PSP's trouble:
 * the payout waits and is sent again, never rejected for it.
 */
export const SEND_REFUSALS: Record<string, { kind: 'rejected'; code: RejectionCode } | { kind: 'retry' } | { kind: 'exists' } | { kind: 'by_key' }> = {
  /** 409: the idEnvio was used: the send exists; looked up. */
  id_envio_duplicado: { kind: 'exists' },
  /** The key's holder is not the document named (owner-checked send). */
  chave_nao_pertence_ao_documento: { kind: 'rejected', code: '805' },
  /** The amount is not accepted. */
  valor_invalido: { kind: 'rejected', code: '802' },
  /** 422: refused by the PSP's analyses. */
  pagamento_negado: { kind: 'rejected', code: '808' },
  /** A key that names no account: the beneficiary's (a send by key); else the payer key (the operator's). */
  chave_invalida: { kind: 'by_key' },
  /** The operator's own document is blocked at the PSP: the operator's to solve. */
  documento_bloqueado: { kind: 'retry' },
  /** The operator's PSP balance cannot cover it: waits for the operator to fund it. */
  saldo_insuficiente: { kind: 'retry' },
  /** A body the PSP's schema refuses (a field of the beneficiary's it cannot take). */
  json_invalido: { kind: 'rejected', code: '808' },
};

/** The answer of PUT /gn/pix/{idEnvio} (any status) as the payout sender's result. */
export function sendResult(status: number, body: unknown, by: 'key' | 'account', retryAfter: string | null): OrderSendResult & { unknownReason?: string } {
  const b = obj(body);
  if (status >= 200 && status < 300) {
    const e2e = str(b?.e2eId) ?? str(b?.endToEndId);
    return { kind: 'accepted', providerId: e2e ?? '' };
  }
  if (status === 429 || status === 408 || status >= 500) {
    const wait = retryAfter ? `; retry after ${retryAfter} s` : '';
    return { kind: 'retry', error: `the PSP answered ${status}${b?.nome ? ` ${String(b.nome)}` : ''}${wait}` };
  }
  const nome = str(b?.nome) ?? '';
  const mensagem = str(b?.mensagem) ?? str(b?.detail) ?? '';
  const why = `${status} ${nome || '(no nome)'}${mensagem ? `: ${mensagem}` : ''}`;
  if (status === 409) return { kind: 'exists' };
  if (status === 401 || status === 403) return { kind: 'retry', error: `the PSP refused the operator's credentials or scope (pix.send): ${why}` };
  const known = SEND_REFUSALS[nome];
  if (known?.kind === 'exists') return { kind: 'exists' };
  if (known?.kind === 'retry') return { kind: 'retry', error: `the operator's account at the PSP: ${why}` };
  if (known?.kind === 'by_key') return by === 'key' ? { kind: 'rejected', code: '800', error: why } : { kind: 'retry', error: `the payer key: ${why}` };
  if (known?.kind === 'rejected') return { kind: 'rejected', code: known.code, error: why };
  // A refusal Efí does not document: never sent, so rejected (the money goes back), logged.
  return { kind: 'rejected', code: '808', error: why, unknownReason: why };
}

/**
 * The Pix (SPI) rejection reasons a send NAO_REALIZADO carries (`motivo` or gnExtras.erro.codigo,
 * ISO 20022 codes of the SPI's pacs.002), and the cashout rejection code each means. Anything
 * else is 808, logged.
 */
export const SPI_REASONS: Record<string, RejectionCode> = {
  AC03: '800', // creditor account number invalid or missing
  AC14: '800', // creditor account type invalid
  AC07: '801', // creditor account closed
  AM02: '802', // amount above the receiver's limit
  AM09: '802', // wrong amount
  AM18: '802', // too many transactions (limit)
  RC09: '803', // creditor's ISPB invalid
  RC10: '803', // creditor's participant not in the SPI
  AG13: '804', // creditor branch invalid (caja's reading; Pix rarely refuses on the branch)
  BE01: '805', // inconsistent with the end customer (the document does not hold the account)
  CH11: '805', // creditor's CPF/CNPJ incorrect
  BE17: '806', // creditor name/identifier inconsistent
  AC06: '807', // creditor account blocked
  AG03: '807', // transaction type not supported by the account
  DS27: '807', // the receiving user's account cannot receive Pix now
  AB03: '808', // timeout at the receiving participant
  AB09: '808', // error at the receiving participant
  AB11: '808', // timeout at the receiving participant (settlement)
  DS04: '808', // order rejected by the receiving participant
  ED05: '808', // settlement failed
  FF08: '808', // end-to-end id invalid
  RR04: '808', // regulatory reason
  SL02: '808', // receiving participant's specific service
};

/** The rejection code of a NAO_REALIZADO's reason: an SPI code found in it, else 808 (unknown: `known` false). */
export function reasonCode(reason: string | undefined): { code: RejectionCode; known: boolean } {
  const m = reason ? /\b([A-Z]{2}\d{2})\b/.exec(reason) : null;
  const code = m ? SPI_REASONS[m[1]!] : undefined;
  return code ? { code, known: true } : { code: '808', known: false };
}

/** The refusal reason of a send read back: `motivo`, or gnExtras.erro (codigo, motivo). */
function refusalOf(b: Json): string | undefined {
  const erro = obj(obj(b.gnExtras)?.erro) ?? obj(obj(b.gnExtras)?.error);
  const parts = [str(erro?.codigo), str(erro?.motivo), str(b.motivo)].filter(Boolean);
  return parts.length ? parts.join(': ') : undefined;
}

/** What must be compared between a send found and the cashout. */
export interface SendExpectation {
  amount: string;
  payerKey: string;
  pixKey?: string | null;
  bankAccount: string;
  bankBranch: string | null;
  documentId: string;
}

/** A masked document ("***.456.789-**") agrees with the document where it shows digits. */
export function maskedDocumentAgrees(masked: string, documentId: string): boolean {
  const m = masked.replace(/[^0-9A-Za-z*]/g, '');
  const d = documentId.replace(/[^0-9A-Za-z]/g, '');
  if (m.length !== d.length) return false;
  for (let i = 0; i < m.length; i++) if (m[i] !== '*' && m[i]!.toUpperCase() !== d[i]!.toUpperCase()) return false;
  return true;
}

/** What differs between a send found and the cashout (never adopted then), or null. */
export function sendMismatch(b: Json, want: SendExpectation): string | null {
  const problems: string[] = [];
  const valor = parseAmount(b.valor, { maxDecimals: 2 });
  const amount = parseAmount(want.amount, { maxDecimals: 2 });
  if (!valor.ok || !amount.ok || cmp(valor.value, amount.value) !== 0) problems.push(`amount ${String(b.valor)} is not ${want.amount}`);
  const payer = str(b.chave);
  if (payer !== undefined && !sameKey(payer, want.payerKey)) problems.push(`payer key ${payer} is not the configured one`);
  const fav = obj(b.favorecido) ?? {};
  const conta = obj(fav.contaBanco);
  const ident = obj(fav.identificacao) ?? conta;
  if (want.pixKey) {
    const chave = str(fav.chave);
    if (!chave || !sameKey(chave, want.pixKey)) problems.push(`beneficiary key ${chave ?? '(none)'} is not ${want.pixKey}`);
  } else {
    if (!conta) problems.push('sent to a key, not to the cashout\'s account');
    else {
      if (!sameNumber(String(conta.conta ?? ''), want.bankAccount)) problems.push(`account ${String(conta.conta)} is not ${want.bankAccount}`);
      if (conta.agencia !== undefined && want.bankBranch && !sameNumber(String(conta.agencia), want.bankBranch)) problems.push(`branch ${String(conta.agencia)} is not ${want.bankBranch}`);
    }
  }
  const shown = str(ident?.cpf) ?? str(ident?.cnpj);
  if (shown !== undefined && !maskedDocumentAgrees(shown, want.documentId)) problems.push(`beneficiary document ${shown} is not ${want.documentId}`);
  return problems.length ? problems.join('; ') : null;
}

/** The devoluções of a sent Pix that the receiving bank made (returned money), summed. */
function returned(b: Json): { total: Decimal; reason: string } | null {
  const list = Array.isArray(b.devolucoes) ? b.devolucoes : [];
  let total = dec('0');
  const reasons: string[] = [];
  for (const d of list) {
    const o = obj(d);
    if (!o || o.status !== 'DEVOLVIDO') continue;
    const v = parseAmount(o.valor, { maxDecimals: 2 });
    if (!v.ok) continue;
    total = add(total, v.value);
    reasons.push([str(o.natureza), str(o.motivo)].filter(Boolean).join(' ') || 'returned');
  }
  return reasons.length ? { total, reason: reasons.join('; ') } : null;
}

/**
 * A send read back (GET /gn/pix/enviados/id-envio/{idEnvio}) as the payout sender's state:
 * EM_PROCESSAMENTO → processing; REALIZADO → paid, unless the receiving bank returned the whole
 * amount since (a devolução DEVOLVIDO: returned); NAO_REALIZADO → rejected with the reason's code.
 * Null when the answer has no status caja knows (unreadable).
 */
export function sendState(body: unknown, want: SendExpectation): (OrderState & { unknownReason?: string }) | null {
  const b = obj(body);
  if (!b) return null;
  const status = str(b.status);
  const providerId = str(b.endToEndId) ?? str(b.e2eId);
  const mismatch = sendMismatch(b, want);
  const found = { state: status ?? '?', ...(providerId ? { providerId } : {}), ...(mismatch ? { mismatch } : {}) };
  switch (status) {
    case 'EM_PROCESSAMENTO':
      return { kind: 'processing', ...found };
    case 'REALIZADO': {
      const back = returned(b);
      if (back) {
        const sent = parseAmount(b.valor, { maxDecimals: 2 });
        // Returned in full: the payout came back. A partial return is not the beneficiary's
        // refusal of the payout; it is kept paid (and shows in the row's provider state).
        if (sent.ok && cmp(back.total, sent.value) >= 0) {
          return { kind: 'returned', ...found, state: 'REALIZADO+DEVOLVIDO', code: '808', cause: `returned by the receiving bank: ${back.reason}` };
        }
        return { kind: 'paid', ...found, state: `REALIZADO (partly returned: ${toFixed(back.total, 2)})` };
      }
      return { kind: 'paid', ...found };
    }
    case 'NAO_REALIZADO': {
      const reason = refusalOf(b);
      const { code, known } = reasonCode(reason);
      return { kind: 'rejected', ...found, code, cause: `not made (NAO_REALIZADO): ${reason ?? 'no reason given'}`, ...(known ? {} : { unknownReason: reason ?? '(none)' }) };
    }
    default:
      return null;
  }
}

/** A send's idEnvio and end-to-end id named by the PSP's webhook (`{pix: [{…, gnExtras: {idEnvio}}]}`): hints only. */
export function parseSendHints(body: unknown): { idEnvio: string | null; e2eId: string | null }[] {
  const list = obj(body)?.pix;
  if (!Array.isArray(list)) return [];
  const out: { idEnvio: string | null; e2eId: string | null }[] = [];
  for (const entry of list.slice(0, 200)) {
    const e = obj(entry);
    const idEnvio = str(obj(e?.gnExtras)?.idEnvio);
    if (!idEnvio || !ID_ENVIO.test(idEnvio)) continue;
    const e2e = str(e?.endToEndId);
    out.push({ idEnvio, e2eId: e2e && /^[a-zA-Z0-9]{20,40}$/.test(e2e) ? e2e : null });
  }
  return out;
}

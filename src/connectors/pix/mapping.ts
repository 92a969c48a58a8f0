// The API Pix connector's transformers (pure): caja's deposits and refunds to the API Pix v2 wire
// format (cob, pix, devolução) and back. No I/O here; the unit tests cover each rule.
import { classifyPixKey } from '../../domain/pix.ts';
import { type Decimal, eq, parseAmount, toFixed } from '../../domain/money.ts';
import { qrPngBase64 } from '../../domain/qr.ts';
import { newReference } from '../../domain/references.ts';
import { depositReference, formatDateTime, type PaymentInfo } from '../../domain/payment-info.ts';
import type { ChargeOrder, Hint, ProviderPayment, ProviderReturn, RefundOutcome, SendBackShown } from '../payin.ts';

/** The API Pix's txid of a charge: 26 to 35 letters or digits. */
export const TXID = /^[a-zA-Z0-9]{26,35}$/;

/**
 * A new charge's txid: `caja` and 28 random letters and digits (32 characters). Random, never
 * derived from the deposit id or the master key: after a database restore the deposit ids repeat,
 * and two installations may share a key, and a derived txid then named a cob that already existed
 * at the PSP (src/domain/references.ts).
 */
export function newTxid(): string {
  return newReference('caja', 32);
}

/**
 * A new refund's devolução id: `cajadev` and 25 random letters and digits (32 of the
 * [a-zA-Z0-9]{1,35} allowed). Random, never derived from the refund id (which repeats after a
 * database restore): stored with the refund's row before the first PUT.
 */
export function newDevolucaoId(): string {
  return newReference('cajadev', 32);
}

/** What differs between a devolução read from the PSP and the refund (its valor); null when it is the refund's. */
export function devolucaoMismatch(devolucao: unknown, amount: Decimal): string | null {
  const valor = parseValor((devolucao as { valor?: unknown } | null)?.valor);
  return valor !== null && eq(valor, amount) ? null : `valor ${String((devolucao as { valor?: unknown } | null)?.valor ?? '(none)')} (the refund's is ${toFixed(amount, 2)})`;
}

/** BRL with two decimals, as valor.original and valor take it ("10.50"). */
export function formatValor(amount: Decimal): string {
  return toFixed(amount, 2);
}

/** A valor from the PSP ("10.50"), or null when it is not a positive decimal with at most 2 places. */
export function parseValor(value: unknown): Decimal | null {
  const parsed = parseAmount(value, { maxDecimals: 2, maxIntegerDigits: 15 });
  return parsed.ok ? parsed.value : null;
}

/** The cob's expiry in whole seconds from now (at least 1). */
export function expiracaoSeconds(createdAt: Date, expiresAt: Date): number {
  return Math.max(1, Math.floor((expiresAt.getTime() - createdAt.getTime()) / 1000));
}

/** The body of PUT /cob/{txid}, created at `now` (its expiry counts from the cob's creation). */
export function cobBody(order: ChargeOrder, pixKey: string, now: Date = order.createdAt): Record<string, unknown> {
  const body: Record<string, unknown> = {
    calendario: { expiracao: expiracaoSeconds(now, order.expiresAt) },
    valor: { original: formatValor(order.amount) },
    chave: pixKey,
  };
  const devedor = devedorOf(order.payer);
  if (devedor) body.devedor = devedor;
  const solicitacao = (order.description ?? '').replace(/\s+/g, ' ').trim().slice(0, 140);
  if (solicitacao) body.solicitacaoPagador = solicitacao;
  return body;
}

/** devedor: cpf (11 digits) or cnpj (14) with nome; the API wants both or neither. */
export function devedorOf(payer: ChargeOrder['payer']): Record<string, string> | null {
  const doc = (payer.document ?? '').replace(/[.\-/\s]/g, '').toUpperCase();
  const nome = (payer.name ?? '').replace(/\s+/g, ' ').trim().slice(0, 200);
  if (!doc || !nome) return null;
  if (/^\d{11}$/.test(doc)) return { cpf: doc, nome };
  if (/^[0-9A-Z]{12}\d{2}$/.test(doc)) return { cnpj: doc, nome };
  return null;
}

/** The deposit's payment_info from the PSP's cob: its pixCopiaECola is the BR Code shown. */
export function paymentInfoFromCob(order: ChargeOrder, txid: string, cob: { pixCopiaECola?: unknown; location?: unknown }): PaymentInfo {
  const brCode = typeof cob.pixCopiaECola === 'string' ? cob.pixCopiaECola : '';
  if (!brCode) throw new Error('the cob has no pixCopiaECola');
  const reference = depositReference(order.depositId);
  return {
    type: order.method.type,
    payment_method: order.method.code,
    payment_method_name: order.method.name,
    amount: order.amount,
    currency: order.method.currency,
    expiration_date: formatDateTime(order.expiresAt),
    created_at: formatDateTime(order.createdAt),
    metadata: { reference, txid },
    secondary_metadata: { reference, qr_code: qrPngBase64(brCode), digitable_line: brCode },
  };
}

/** Whether a cob read back (GET /cob/{txid}) is the one we asked for, still payable. */
export function sameActiveCob(cob: unknown, order: ChargeOrder, pixKey: string): boolean {
  if (typeof cob !== 'object' || cob === null) return false;
  const c = cob as { status?: unknown; valor?: { original?: unknown }; chave?: unknown; pixCopiaECola?: unknown };
  const valor = parseValor(c.valor?.original);
  return c.status === 'ATIVA' && valor !== null && eq(valor, order.amount) && typeof c.chave === 'string' && sameKey(c.chave, pixKey)
    && typeof c.pixCopiaECola === 'string' && c.pixCopiaECola !== '';
}

/** A Pix (GET /pix/{e2eid}, or an entry of GET /pix) as a provider payment; null when unreadable. */
export function pixToPayment(pix: unknown): ProviderPayment | null {
  if (typeof pix !== 'object' || pix === null) return null;
  const p = pix as Record<string, unknown>;
  const amount = parseValor(p.valor);
  const paidAt = typeof p.horario === 'string' ? new Date(p.horario) : null;
  if (typeof p.endToEndId !== 'string' || !E2E.test(p.endToEndId) || !amount || !paidAt || Number.isNaN(paidAt.getTime())) return null;
  return {
    id: p.endToEndId,
    chargeReference: typeof p.txid === 'string' && p.txid !== '' ? p.txid : null,
    amount,
    currency: 'BRL',
    receiver: typeof p.chave === 'string' ? p.chave : null,
    paidAt,
    // Efí reports the payer in its extra fields (gnExtras.pagador: cpf or cnpj); the API Pix does not.
    ...payerDocumentOf(p),
    returns: Array.isArray(p.devolucoes) ? p.devolucoes.map(devolucaoToReturn).filter((r): r is ProviderReturn => r !== null) : [],
    raw: pix,
  };
}

/** The payer's CPF or CNPJ when the PSP reports it (Efí: gnExtras.pagador); nothing when it does not. */
export function payerDocumentOf(p: Record<string, unknown>): { payerDocument?: string | null } {
  const extras = p.gnExtras as { pagador?: { cpf?: unknown; cnpj?: unknown } } | undefined;
  const pagador = extras && typeof extras === 'object' ? extras.pagador : undefined;
  if (!pagador || typeof pagador !== 'object') return {};
  const doc = typeof pagador.cpf === 'string' ? pagador.cpf : typeof pagador.cnpj === 'string' ? pagador.cnpj : null;
  return { payerDocument: doc === null ? null : doc.replace(/\D/g, '') };
}

/** Naturezas of devoluções the payer's side makes under the MED (bacen/pix-api 2.9.0 DevolucaoNatureza). */
export const MED_NATUREZAS = ['MED_OPERACIONAL', 'MED_FRAUDE', 'MED_PIX_AUTOMATICO'] as const;

/** One devolução of a received Pix (the Devolucao schema), or null when unreadable. */
export function devolucaoToReturn(d: unknown): ProviderReturn | null {
  if (typeof d !== 'object' || d === null) return null;
  const x = d as Record<string, unknown>;
  const amount = parseValor(x.valor);
  const rtrId = typeof x.rtrId === 'string' && x.rtrId !== '' ? x.rtrId : null;
  if (!amount || !rtrId) return null;
  const natureza = typeof x.natureza === 'string' ? x.natureza : 'ORIGINAL';
  const horario = (x.horario ?? {}) as { liquidacao?: unknown; solicitacao?: unknown };
  const at = typeof horario.liquidacao === 'string' ? new Date(horario.liquidacao) : typeof horario.solicitacao === 'string' ? new Date(horario.solicitacao) : null;
  return {
    id: rtrId,
    amount,
    reason: natureza,
    description: typeof x.motivo === 'string' ? x.motivo : typeof x.descricao === 'string' ? x.descricao : null,
    bankInitiated: (MED_NATUREZAS as readonly string[]).includes(natureza),
    kind: 'med',
    status: x.status === 'DEVOLVIDO' ? 'settled' : x.status === 'NAO_REALIZADO' ? 'failed' : 'pending',
    returnedAt: at && !Number.isNaN(at.getTime()) ? at : null,
  };
}

/** End-to-end ids are 32 characters (E, the ISPB, date and time, a sequence); a bit of room. */
const E2E = /^[a-zA-Z0-9]{20,40}$/;

/** The webhook body {pix: [{endToEndId, …}]} as payments to look up (at most 200). */
export function parsePixHint(body: unknown): Hint[] {
  if (typeof body !== 'object' || body === null) return [];
  const list = (body as { pix?: unknown }).pix;
  if (!Array.isArray(list)) return [];
  const ids = new Map<string, string[]>();
  for (const entry of list.slice(0, 200)) {
    // A send's notification (Efí: gnExtras.idEnvio) is a payout's hint (payout-mapping.ts parseSendHints), no payment received.
    if ((entry as { gnExtras?: { idEnvio?: unknown } } | null)?.gnExtras?.idEnvio !== undefined) continue;
    const e = entry as { endToEndId?: unknown; devolucoes?: unknown } | null;
    const id = e?.endToEndId;
    if (typeof id !== 'string' || !E2E.test(id)) continue;
    // MED devoluções the body names: a payment already applied is read again for them.
    const med = Array.isArray(e!.devolucoes)
      ? e!.devolucoes.slice(0, 50).map(devolucaoToReturn).filter((r): r is ProviderReturn => r !== null && r.bankInitiated).map((r) => r.id)
      : [];
    ids.set(id, [...(ids.get(id) ?? []), ...med]);
  }
  return [...ids].map(([id, returns]) => (returns.length ? { kind: 'payment' as const, id, returns } : { kind: 'payment' as const, id }));
}

/** The same key, whatever its spelling (CNPJ punctuation, e-mail case, UUID case). */
export function sameKey(a: string, b: string): boolean {
  const na = classifyPixKey(a, { anyUuidVersion: true });
  const nb = classifyPixKey(b, { anyUuidVersion: true });
  return na.ok && nb.ok ? na.normalized === nb.normalized : a.trim() === b.trim();
}

export interface MatchTarget {
  status: string;
  payerAmount: Decimal;
  txid: string | null;
  /** When the deposit (and its cob) expired; a payment made later is not taken. */
  expiresAt?: Date | null;
}

/** Clock difference allowed between the PSP's horario and caja's expiry. */
export const PAID_IN_TIME_TOLERANCE_MS = 60_000;

export type MatchResult = { ok: true } | { ok: false; reason: string };

/**
 * Whether a payment read from the PSP completes a deposit: same txid, same amount to the cent,
 * paid to the configured key, the deposit still waiting for it, and paid before it expired. Anything else is kept for
 * the operator as unmatched, never credited.
 */
export function matchPayment(payment: ProviderPayment, deposit: MatchTarget | null, pixKey: string): MatchResult {
  if (!payment.chargeReference) return { ok: false, reason: 'paid without a txid' };
  if (!deposit || deposit.txid !== payment.chargeReference) return { ok: false, reason: `no deposit has txid ${payment.chargeReference}` };
  if (payment.receiver === null || !sameKey(payment.receiver, pixKey)) return { ok: false, reason: `paid to key ${payment.receiver ?? '(none)'}, not the configured one` };
  if (!eq(payment.amount, deposit.payerAmount)) return { ok: false, reason: `paid ${formatValor(payment.amount)}, the deposit asks ${formatValor(deposit.payerAmount)}` };
  if (deposit.status !== 'PENDING') return { ok: false, reason: `the deposit is ${deposit.status}` };
  if (deposit.expiresAt && payment.paidAt.getTime() > deposit.expiresAt.getTime() + PAID_IN_TIME_TOLERANCE_MS) {
    return { ok: false, reason: `paid at ${payment.paidAt.toISOString()}, after the deposit expired at ${deposit.expiresAt.toISOString()}` };
  }
  return { ok: true };
}

/** A devolução's status (GET or PUT /pix/{e2eid}/devolucao/{id}) as a refund outcome. */
export function devolucaoOutcome(devolucao: unknown): RefundOutcome | null {
  if (typeof devolucao !== 'object' || devolucao === null) return null;
  const d = devolucao as Record<string, unknown>;
  const reference = typeof d.id === 'string' ? d.id : undefined;
  // The return's own end-to-end id (BACEN's rtrId): what the PSP's statement shows for the debit.
  const heard = typeof d.rtrId === 'string' && /^D[0-9A-Za-z]{31}$/.test(d.rtrId) ? { providerId: d.rtrId, providerState: String(d.status) } : {};
  const motivo = typeof d.motivo === 'string' && d.motivo ? d.motivo : undefined;
  switch (d.status) {
    case 'EM_PROCESSAMENTO':
      return { status: 'PENDING', reference, ...heard };
    case 'DEVOLVIDO':
      return { status: 'COMPLETED', reference, ...heard };
    case 'NAO_REALIZADO':
      return { status: 'REJECTED', reference, ...heard, reason: motivo ? `The Pix return was not made: ${motivo}` : 'The Pix return was not made', reasonCode: 'NAO_REALIZADO' };
    default:
      return null;
  }
}

/**
 * A devolução of a refused Pix (the payment sent back in full), as the PSP shows it: its state,
 * and `mismatch` when its valor is not the payment's (a devolução under this id that is another:
 * never adopted). Null when the PSP's answer has no status caja knows.
 */
export function sendBackShown(devolucao: unknown, amount: Decimal): SendBackShown | null {
  const outcome = devolucaoOutcome(devolucao);
  if (!outcome) return null;
  const state = outcome.status === 'COMPLETED' ? 'done' : outcome.status === 'REJECTED' ? 'failed' : 'pending';
  const mismatch = devolucaoMismatch(devolucao, amount);
  return {
    state, providerId: outcome.providerId, providerState: String((devolucao as { status?: unknown }).status),
    ...(outcome.reason ? { reason: outcome.reason } : {}), ...(mismatch ? { mismatch } : {}),
  };
}

// The simulated PSP's state: charges (cob), received Pix, devoluções, webhooks, tokens, and the
// test-facing records (requests seen, webhook deliveries, schema violations). Kept in memory and
// written to `<dir>/state.json` after every change (whole file, renamed into place), so a
// simulator killed and restarted on the same directory still knows every charge and payment.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
export type DevolucaoStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
type Json = any;

export interface Cob {
  txid: string;
  revisao: number;
  status: CobStatus;
  calendario: { criacao: string; expiracao: number };
  loc: { id: number; location: string; tipoCob: 'cob'; criacao: string };
  location: string;
  valor: Json;
  chave: string;
  devedor?: Json;
  solicitacaoPagador?: string;
  infoAdicionais?: Json[];
  pixCopiaECola: string;
  /** End-to-end ids of the Pix that paid it. */
  pix: string[];
  /** The charge as answered at each revision, oldest first (GET /cob/{txid}?revisao=). */
  revisoes: Json[];
}

export interface Devolucao {
  id: string;
  rtrId: string;
  valor: string;
  natureza: string;
  descricao?: string;
  horario: { solicitacao: string; liquidacao?: string };
  status: DevolucaoStatus;
  motivo?: string;
}

export interface PixRecord {
  endToEndId: string;
  txid?: string;
  valor: string;
  chave: string;
  horario: string;
  infoPagador?: string;
  /** The payer, as Efí reports it in gnExtras.pagador (set by /control/pay's `pagador`). */
  pagador?: { nome?: string; cpf?: string; cnpj?: string };
  devolucoes: Devolucao[];
}

export interface Webhook {
  chave: string;
  webhookUrl: string;
  criacao: string;
}

export interface Token {
  expiresAt: number;
  scope: string;
}

export interface RequestRecord {
  method: string;
  path: string;
  /** The query string, without `?`, when there is one (the window of a GET /pix poll). */
  query?: string;
  /** null while unanswered, and for good when an outage hangs or resets the request. */
  status: number | null;
  at: string;
}

export interface Delivery {
  url: string;
  /** HTTP status answered; null when the connection failed (see `error`) or the mode dropped it. */
  status: number | null;
  attempt: number;
  endToEndIds: string[];
  at: string;
  error?: string;
  dropped?: boolean;
}

export interface ViolationRecord {
  /** request: caja sent something the document does not allow; response/webhook: the simulator did. */
  side: 'request' | 'response' | 'webhook';
  method: string;
  path: string;
  status?: number;
  errors: string[];
  at: string;
}

export interface State {
  cobs: Record<string, Cob>;
  pix: Record<string, PixRecord>;
  webhooks: Record<string, Webhook>;
  tokens: Record<string, Token>;
  tokensIssued: number;
  nextLocId: number;
  requests: RequestRecord[];
  deliveries: Delivery[];
  violations: ViolationRecord[];
}

const MAX_LOG = 5000;

export function emptyState(): State {
  return { cobs: {}, pix: {}, webhooks: {}, tokens: {}, tokensIssued: 0, nextLocId: 1, requests: [], deliveries: [], violations: [] };
}

export class Store {
  state: State;
  private readonly file: string;

  constructor(dir: string) {
    this.file = join(dir, 'state.json');
    this.state = existsSync(this.file) ? { ...emptyState(), ...JSON.parse(readFileSync(this.file, 'utf8')) } : emptyState();
  }

  save(): void {
    const s = this.state;
    for (const log of [s.requests, s.deliveries, s.violations]) if (log.length > MAX_LOG) log.splice(0, log.length - MAX_LOG);
    const tmp = this.file + '.tmp';
    writeFileSync(tmp, JSON.stringify(s));
    renameSync(tmp, this.file);
  }

  reset(): void {
    this.state = emptyState();
    this.save();
  }

  violation(v: Omit<ViolationRecord, 'at'>): void {
    this.state.violations.push({ ...v, at: new Date().toISOString() });
    this.save();
  }

  /** Every devolução, with the end-to-end id of the Pix it returns. */
  devolucoes(): Array<Devolucao & { endToEndId: string }> {
    return Object.values(this.state.pix).flatMap((p) => p.devolucoes.map((d) => ({ ...d, endToEndId: p.endToEndId })));
  }
}

// The payer's bank, on the control port: turns a settled Pix into a MED devolução (bacen/pix-api
// 2.9.0: a devolução whose natureza is MED_OPERACIONAL, MED_FRAUDE or MED_PIX_AUTOMATICO), made
// by the payer's side without the receiver asking. Full or partial, several on one Pix up to its
// value, dated when the test says (days later). It shows in GET /pix/{e2eid} and GET /pix (with
// devolucaoPresente), and the PSP notifies the receiver's webhook with the Pix unless told not to.
//
//   POST /control/med {e2eid, valor?, natureza?, motivo?, horario?, notify?}
//     valor     default: what is left of the Pix
//     natureza  MED_FRAUDE (default), MED_OPERACIONAL, MED_PIX_AUTOMATICO
//     horario   when it settled (RFC 3339), default now
//     notify    false: no webhook (only the poll or a read finds it)
import type { FastifyInstance } from 'fastify';
import { randomAlnum, returnId, rfc3339 } from './ids.ts';
import type { Psp } from './psp.ts';
import type { Devolucao, Store } from './store.ts';
import type { WebhookSender } from './webhooks.ts';

type Json = any;

const NATUREZAS = ['MED_OPERACIONAL', 'MED_FRAUDE', 'MED_PIX_AUTOMATICO'] as const;
const cents = (valor: string) => BigInt(valor.replace('.', ''));
const fromCents = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;

/** Efí's gnExtras.pagador: a name and a CPF (11 digits) or a CNPJ (14 digits). */
export function validPagador(p: unknown): boolean {
  if (typeof p !== 'object' || p === null) return false;
  const x = p as Record<string, unknown>;
  if (x.nome !== undefined && typeof x.nome !== 'string') return false;
  const cpf = typeof x.cpf === 'string' && /^\d{11}$/.test(x.cpf);
  const cnpj = typeof x.cnpj === 'string' && /^\d{14}$/.test(x.cnpj);
  return (cpf || cnpj) && !(x.cpf !== undefined && x.cnpj !== undefined);
}

export function registerMed(app: FastifyInstance, o: { psp: Psp; store: Store; webhooks: WebhookSender }): void {
  app.post('/control/med', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    if (typeof b.e2eid !== 'string') return reply.code(400).send({ error: 'e2eid is required' });
    const pix = o.store.state.pix[b.e2eid];
    if (!pix) return reply.code(404).send({ error: `no Pix ${b.e2eid}` });
    const natureza = b.natureza ?? 'MED_FRAUDE';
    if (!(NATUREZAS as readonly string[]).includes(natureza)) return reply.code(400).send({ error: `natureza: ${NATUREZAS.join(' | ')}` });
    const at = b.horario === undefined ? new Date() : new Date(b.horario);
    if (Number.isNaN(at.getTime())) return reply.code(400).send({ error: 'horario must be an RFC 3339 date-time' });
    const returned = pix.devolucoes.filter((d) => d.status !== 'NAO_REALIZADO').reduce((sum, d) => sum + cents(d.valor), 0n);
    const left = cents(pix.valor) - returned;
    const valor = b.valor ?? fromCents(left);
    if (typeof valor !== 'string' || !/^\d{1,10}\.\d{2}$/.test(valor) || cents(valor) === 0n) return reply.code(400).send({ error: 'valor must look like 10.50 and be above zero' });
    if (cents(valor) > left) return reply.code(409).send({ error: `the Pix has ${fromCents(left)} left to return` });
    const d: Devolucao = {
      // The payer's side names it: not an id the receiver chose.
      id: `MED${randomAlnum(20)}`,
      rtrId: returnId(at, o.psp.receiver.ispb),
      valor,
      natureza,
      horario: { solicitacao: rfc3339(at), liquidacao: rfc3339(at) },
      status: 'DEVOLVIDO',
    };
    if (typeof b.motivo === 'string') d.motivo = b.motivo;
    pix.devolucoes.push(d);
    o.store.save();
    if (b.notify !== false) o.webhooks.notify(pix.chave, [o.psp.pixView(pix)]);
    return reply.code(201).send({ ...d, endToEndId: pix.endToEndId });
  });
}

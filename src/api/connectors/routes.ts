// Callbacks from connectors' providers. POST /connectors/pix/webhook/pix (and without /pix): the
// PSP's {pix: [{endToEndId, …}]}. A callback is a hint: each payment it names is read back from
// the PSP and only what the PSP confirms is applied (src/deposits/payments.ts), so a forged or
// replayed callback credits nothing. Answers 200 once handled; 503 when the PSP could not be read
// (the PSP retries, and the reconciliation poll catches up anyway).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3ErrorBody } from '../v3/face.ts';
import { v3Errors } from '../../http/errors.ts';
import { ConnectorError } from '../../connectors/payin.ts';
import { applyHints, applyPayment, keptPaymentOutcome } from '../../deposits/payments.ts';
import { applyAcquirerEvents } from '../../deposits/acquirer-events.ts';
import { depositsNamed } from '../../deposits/lookups.ts';
import type { CallbackFacts } from '../../connectors/kind.ts';
import { hintPayout } from '../../cashouts/payouts.ts';
import { hintConnectorRefund } from '../../refunds/provider-refunds.ts';
import { connectorKind, connectorKinds } from '../../connectors/providers.ts';
import { payinConnectorNamed } from '../../connectors/registry.ts';

export function registerConnectorCallbacks(app: FastifyInstance, ctx: AppContext): void {
  const handler = async (request: { params: { name: string }; body: unknown; log: FastifyInstance['log'] }, reply: import('fastify').FastifyReply) => {
    const connector = await payinConnectorNamed(ctx, request.params.name.toLowerCase());
    if (!connector || connector.simulated) return reply.status(404).send(v3ErrorBody(v3Errors.notFound('No such connector')));
    try {
      // A payout's notification in the same post (Pix: a send's gnExtras.idEnvio), as the kind
      // parses it, is a hint for that payout: read back from the provider before anything moves
      // (src/cashouts/payouts.ts hintPayout); one naming a payout caja does not know changes nothing.
      const payoutHints = connector.payout ? connectorKind(connector.name)?.payoutHints : undefined;
      if (payoutHints) {
        for (const h of payoutHints(request.body).slice(0, 50)) await hintPayout(ctx, connector.name, { reference: h.reference, providerId: h.providerId });
      }
      const result = await applyHints(ctx, connector, request.body);
      return reply.status(200).send({ received: result.hints });
    } catch (err) {
      if (err instanceof ConnectorError) {
        request.log.warn({ err, connector: connector.name }, 'callback: the provider could not be read; left to its retry and the poll');
        return reply.status(503).send(v3ErrorBody(v3Errors.serviceUnavailable('The provider could not be read; retry later')));
      }
      throw err;
    }
  };
  const schema = { hide: true, params: { type: 'object', properties: { name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,32}$' } }, required: ['name'] } };
  app.post<{ Params: { name: string } }>('/connectors/:name/webhook', { schema }, handler);
  app.post<{ Params: { name: string } }>('/connectors/:name/webhook/pix', { schema }, handler);

  registerKindCallbacks(app, ctx);
}

// Each kind's own callback paths (src/connectors/kind.ts `callbacks`), e.g. STP's
// POST /connectors/stp/abono (an incoming transfer, answered {"mensaje":"confirmar"} or
// {"mensaje":"devolver","id":n}), /connectors/stp/estado (a sent order's state change, a hint) and
// /connectors/adyen/notifications (an acquirer's signed statements, answered "[accepted]").
// The kind parses and verifies the post; what it found is applied here by its feature: a payment
// by deposits (applyPayment, once), an order's hint by cashouts, else refunds (looked up at the
// provider before anything moves), an acquirer's statements by deposits (each once; a refund's
// outcome looked up at once). 401 when the kind refuses the post's credentials; 404 when the
// connector is not configured or the provider does not show what the post names; 503 when the
// provider could not be read.
function registerKindCallbacks(app: FastifyInstance, ctx: AppContext): void {
  // What a kind's callback may ask of the features (a transfer to an own account: the deposits it names).
  const facts: CallbackFacts = { depositsNamed: (connector, names) => depositsNamed(ctx.db, connector, names) };
  for (const kind of connectorKinds()) {
    for (const cb of kind.callbacks ?? []) {
      app.post(`/connectors/${kind.name}/${cb.path}`, { schema: { hide: true } }, async (request, reply) => {
        const connector = await payinConnectorNamed(ctx, kind.name);
        const outcome = await cb.receive(ctx, connector, { headers: request.headers, body: request.body }, facts);
        switch (outcome.kind) {
          case 'answer': return reply.status(200).send(outcome.body);
          case 'payment': {
            await applyPayment(ctx, connector!, outcome.payment, 'webhook');
            return reply.status(200).send(outcome.answer(await keptPaymentOutcome(ctx.db, kind.name, outcome.payment.id)));
          }
          case 'order': {
            const known = await hintPayout(ctx, kind.name, { reference: outcome.reference, providerId: outcome.providerId })
              || (outcome.reference !== null && await hintConnectorRefund(ctx, kind.name, outcome.reference));
            if (!known) request.log.warn({ connector: kind.name, reference: outcome.reference, providerId: outcome.providerId }, 'state change names no order of caja: ignored');
            return reply.status(200).send(outcome.body);
          }
          case 'not_configured': return reply.status(404).send(v3ErrorBody(v3Errors.notFound(`The ${kind.label} connector is not configured`)));
          case 'events': {
            const applied = await applyAcquirerEvents(ctx, outcome.connector, outcome.events);
            for (const reference of applied.refundReferences) await hintConnectorRefund(ctx, kind.name, reference);
            return reply.status(200).type(outcome.answer.contentType).send(outcome.answer.body);
          }
          case 'forbidden':
            request.log.warn({ connector: kind.name, reason: outcome.message }, 'callback refused: its credentials or signature do not verify');
            return reply.status(401).send(v3ErrorBody(v3Errors.invalidCredentials(outcome.message)));
          case 'invalid': return reply.status(400).send(v3ErrorBody(v3Errors.validation(outcome.details)));
          case 'unknown': return reply.status(404).send(v3ErrorBody(v3Errors.notFound(`${kind.label} does not show this transfer`)));
          case 'unavailable': return reply.status(503).send(v3ErrorBody(v3Errors.serviceUnavailable(`${kind.label} could not be read; retry later`)));
        }
      });
    }
  }
}

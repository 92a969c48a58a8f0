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
import { applyHints } from '../../deposits/payments.ts';
import { payinConnectorNamed } from '../../connectors/registry.ts';
import { type CallbackOutcome, receiveAbono, receiveEstado } from '../../connectors/stp/callbacks.ts';
import { ADYEN_CONNECTOR, type AdyenConnector } from '../../connectors/adyen/connector.ts';
import { ACCEPTED } from '../../connectors/adyen/notifications.ts';
import { receiveAdyenNotifications } from '../../deposits/acquirer-events.ts';
import { hintConnectorRefund } from '../../refunds/provider-refunds.ts';
import { hintPayout } from '../../cashouts/payouts.ts';
import { PIX_CONNECTOR } from '../../connectors/pix/connector.ts';
import { parseSendHints } from '../../connectors/pix/payout-mapping.ts';

export function registerConnectorCallbacks(app: FastifyInstance, ctx: AppContext): void {
  const handler = async (request: { params: { name: string }; body: unknown; log: FastifyInstance['log'] }, reply: import('fastify').FastifyReply) => {
    const connector = await payinConnectorNamed(ctx, request.params.name.toLowerCase());
    if (!connector || connector.simulated) return reply.status(404).send(v3ErrorBody(v3Errors.notFound('No such connector')));
    try {
      // A Pix send's notification (Efí: gnExtras.idEnvio) is a hint for that payout: the send is
      // read back from the PSP before anything moves (src/cashouts/payouts.ts hintPayout); one
      // naming a send caja does not know changes nothing.
      if (connector.name === PIX_CONNECTOR && connector.payout) {
        for (const h of parseSendHints(request.body).slice(0, 50)) await hintPayout(ctx, PIX_CONNECTOR, { reference: h.idEnvio, providerId: h.e2eId });
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

  registerStpCallbacks(app, ctx);
  registerAdyenNotifications(app, ctx);
}

// Adyen (src/connectors/adyen/): POST /connectors/adyen/notifications, Adyen's standard
// notifications. Every item's HMAC is verified with the operator's key(s) (a forged or tampered
// batch: 401, nothing applied); the batch is applied (src/deposits/acquirer-events.ts) and answered
// "[accepted]", as Adyen expects; a refund outcome looks its refund up at once.
function registerAdyenNotifications(app: FastifyInstance, ctx: AppContext): void {
  app.post('/connectors/adyen/notifications', { schema: { hide: true } }, async (request, reply) => {
    const connector = await payinConnectorNamed(ctx, ADYEN_CONNECTOR);
    if (!connector || !('verify' in connector)) return reply.status(404).send(v3ErrorBody(v3Errors.notFound('The Adyen connector is not configured')));
    const outcome = await receiveAdyenNotifications(ctx, connector as AdyenConnector, request.body);
    if (outcome.kind === 'forged') {
      request.log.warn({ reason: outcome.reason }, 'adyen notification refused: its signature does not verify');
      return reply.status(401).send(v3ErrorBody(v3Errors.invalidCredentials(`Notification refused: ${outcome.reason}`)));
    }
    for (const reference of outcome.refundReferences) await hintConnectorRefund(ctx, ADYEN_CONNECTOR, reference);
    return reply.status(200).type('text/plain').send(ACCEPTED);
  });
}

// STP (src/connectors/stp/callbacks.ts): POST /connectors/stp/abono (an incoming transfer, answered
// {"mensaje":"confirmar"} or {"mensaje":"devolver","id":n}) and /connectors/stp/estado (a sent
// order's state change, a hint). 401 without the operator's webhook_secret when one is set; 404
// when STP is not configured or does not show the transfer; 503 when STP could not be read.
function registerStpCallbacks(app: FastifyInstance, ctx: AppContext): void {
  const answer = (reply: import('fastify').FastifyReply, outcome: CallbackOutcome) => {
    switch (outcome.kind) {
      case 'answer': return reply.status(200).send(outcome.body);
      case 'not_configured': return reply.status(404).send(v3ErrorBody(v3Errors.notFound('The STP connector is not configured')));
      case 'forbidden': return reply.status(401).send(v3ErrorBody(v3Errors.invalidCredentials('Missing or wrong X-Stp-Webhook-Secret')));
      case 'invalid': return reply.status(400).send(v3ErrorBody(v3Errors.validation(outcome.details)));
      case 'unknown': return reply.status(404).send(v3ErrorBody(v3Errors.notFound('STP does not show this transfer')));
      case 'unavailable': return reply.status(503).send(v3ErrorBody(v3Errors.serviceUnavailable('STP could not be read; retry later')));
    }
  };
  const secret = (headers: Record<string, unknown>) => (typeof headers['x-stp-webhook-secret'] === 'string' ? headers['x-stp-webhook-secret'] : undefined);
  app.post('/connectors/stp/abono', { schema: { hide: true } }, async (request, reply) => answer(reply, await receiveAbono(ctx, secret(request.headers), request.body)));
  app.post('/connectors/stp/estado', { schema: { hide: true } }, async (request, reply) => answer(reply, await receiveEstado(ctx, secret(request.headers), request.body)));
}

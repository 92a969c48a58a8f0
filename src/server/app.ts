// Builds the HTTP server: shared parsers, operations endpoints, and one encapsulated scope per
// API face, each rendering errors in its own format.
import { dummyPasswordHash } from '../domain/secrets.ts';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppContext } from '../config/context.ts';
import { registerBodyParsers } from '../http/body-parsers.ts';
import { registerInFlightTracking } from '../http/in-flight.ts';
import { registerIdAndPagingCheck } from '../http/params.ts';
import { registerReplayStore } from '../auth/replay.ts';
import { registerAdminSeparation } from '../api/admin/listener.ts';
import { registerMetrics } from '../ops/metrics.ts';
import { registerMoneyGauges } from '../ops/money-metrics.ts';
import { registerHealth } from '../ops/health.ts';
import { registerDocs } from '../ops/docs.ts';
import { useV3Errors, v3ErrorBody } from '../api/v3/face.ts';
import { v3Errors } from '../http/errors.ts';
import { adminAuth } from '../api/admin/auth.ts';
import { registerAdminMerchants } from '../api/admin/merchants.ts';
import { registerAdminMerchantFees } from '../api/admin/merchant-fees.ts';
import { registerMe } from '../api/v3/me.ts';
import { registerV3Deposits } from '../api/v3/deposits.ts';
import { registerV3DepositList } from '../api/v3/deposit-list.ts';
import { registerSandboxDeposits } from '../api/v3/sandbox-deposits.ts';
import { registerAdminDeposits } from '../api/admin/deposits.ts';
import { registerEvents } from '../api/v3/events.ts';
import { registerV3Notifications } from '../api/v3/notifications.ts';
import { registerAdminNotifications } from '../api/admin/notifications.ts';
import { registerLookups } from '../api/v3/lookups.ts';
import { registerV3Refunds } from '../api/v3/refunds.ts';
import { registerV5Validation } from '../api/v5/validation.ts';
import { registerAdminExchangeRates } from '../api/admin/exchange-rates.ts';
import { registerAdminBalance } from '../api/admin/balance.ts';
import { registerConnectorAdmins } from '../api/admin/connector-routes.ts';
import { registerAdminTokens } from '../api/admin/tokens.ts';
import { registerAdminReconciliation } from '../api/admin/reconciliation.ts';
import { registerConnectorCallbacks } from '../api/connectors/routes.ts';
import { registerBalance } from '../api/v3/balance.ts';
import { registerSettlements } from '../api/v3/settlements.ts';
import { registerSandboxCashouts } from '../api/v3/sandbox-cashouts.ts';
import { registerCashouts } from '../api/cashouts/routes.ts';
import { registerLogos } from '../web/logos.ts';
import { registerCustomerPages } from '../web/pay/routes.ts';
import { registerCheckout } from '../web/checkout/routes.ts';
import { registerReturnLeg } from '../web/checkout/return-leg.ts';
import { registerPanel } from '../panel/routes/register.ts';
import { registerOps } from '../web/ops/routes.ts';
import { useStreamlineFace } from '../api/streamline/face.ts';
import { registerStreamlineLookups } from '../api/streamline/lookups.ts';
import { registerStreamlineRefunds } from '../api/streamline/refunds.ts';
import { registerReturnRedirect, registerStreamlineDeposits } from '../api/streamline/deposits.ts';

export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as unknown as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    ajv: { customOptions: { allErrors: true, allowUnionTypes: true } },
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
  });
  registerInFlightTracking(app);
  // Responses carry credentials and payment data: no cache keeps them unless a route says so
  // (logos do). Behind TLS (an https PUBLIC_BASE_URL) a service without relaxed checks
  // (production) also pins browsers to HTTPS; relaxed checks (staging) let the service be
  // reached over plain http (its cookies go without Secure), which HSTS would forbid.
  const hsts = !ctx.config.relaxedChecks && ctx.config.publicBaseUrl.startsWith('https:');
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    reply.header('cache-control', 'no-store');
    if (hsts) reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
  });
  registerAdminSeparation(app, ctx.config);
  registerBodyParsers(app);
  registerIdAndPagingCheck(app);
  registerMetrics(app, ctx.metrics, ctx.db);
  // The money gauges read the feature services (cashouts' waiting list): registered here, by the
  // composition root, so that ops/metrics.ts (whose Metrics type AppContext carries) imports no service.
  registerMoneyGauges(ctx.metrics.registry, ctx.db);
  await registerDocs(app, ctx.config.publicBaseUrl);
  registerHealth(app, ctx);
  registerLogos(app);
  registerCustomerPages(app, ctx);
  registerCheckout(app, ctx);
  registerReturnLeg(app, ctx);
  registerReturnRedirect(app, ctx);

  useV3Errors(app);
  app.setNotFoundHandler((_request, reply) => {
    reply.status(404).send(v3ErrorBody(v3Errors.notFound('Route not found')));
  });

  await app.register(async (admin) => {
    admin.addHook('onRequest', adminAuth(ctx));
    registerAdminMerchants(admin, ctx);
    registerAdminMerchantFees(admin, ctx);
    registerAdminDeposits(admin, ctx);
    registerAdminNotifications(admin, ctx);
    registerAdminExchangeRates(admin, ctx);
    registerAdminBalance(admin, ctx);
    // Every connector kind's PUT/GET /admin/connectors/{name} (src/connectors/providers.ts).
    registerConnectorAdmins(admin, ctx);
    registerAdminTokens(admin, ctx);
    registerAdminReconciliation(admin, ctx);
  });

  // Providers' callbacks (hints, read back from the provider before anything is applied).
  await app.register(async (callbacks) => registerConnectorCallbacks(callbacks, ctx));

  await app.register(async (v3) => {
    registerReplayStore(v3, ctx);
    registerMe(v3, ctx);
    registerV3Deposits(v3, ctx);
    registerV3DepositList(v3, ctx);
    registerSandboxDeposits(v3, ctx);
    registerEvents(v3, ctx);
    registerV3Notifications(v3, ctx);
    registerLookups(v3, ctx);
    registerV3Refunds(v3, ctx);
    registerBalance(v3, ctx);
    registerSettlements(v3, ctx);
    registerSandboxCashouts(v3, ctx);
    registerV5Validation(v3, ctx);
  });

  // The merchant panel: HTML pages with their own error pages and upload parser.
  await app.register(async (panel) => registerPanel(panel, ctx));

  // The operator console: HTML pages with their own error pages.
  await app.register(async (ops) => registerOps(ops, ctx));

  // Cashout operations render errors as {code, message}.
  await app.register(async (cashouts) => registerCashouts(cashouts, ctx));

  await app.register(async (streamline) => {
    useStreamlineFace(streamline);
    registerStreamlineLookups(streamline, ctx);
    registerStreamlineRefunds(streamline, ctx);
    registerStreamlineDeposits(streamline, ctx);
  });

  // The first sign-in with an unknown e-mail would otherwise also pay for making the hash it is
  // checked against, and take longer than a wrong password (secrets.ts dummyPasswordHash).
  dummyPasswordHash();
  return app;
}

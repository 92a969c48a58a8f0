// The STP connector as the operator sees it (PUT/GET /admin/connectors/stp, `caja connector stp
// show`): its settings without private_key, private_key_passphrase and webhook_secret, and its
// health. A check runs when the configuration is saved: one signed consultation, which tells
// whether STP takes the key and the empresa.
import type { AppContext } from '../../config/context.ts';
import { ConnectorError } from '../payin.ts';
import { payinConnectorNamed } from '../registry.ts';
import { keptPayments } from '../../deposits/payments.ts';
import { connectorView, recordHealth } from '../store.ts';
import { type StpConnector, STP_CONNECTOR } from './connector.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export async function stpView(ctx: Pick<AppContext, 'db' | 'config'>) {
  const view = await connectorView(ctx, STP_CONNECTOR);
  if (!view) return null;
  const h = view.health;
  const { rows } = await ctx.db.query<{ state: string; n: string }>(
    `SELECT state, count(*)::text AS n FROM connector_payouts WHERE connector = $1 AND state <> 'done' GROUP BY state`, [STP_CONNECTOR]);
  const open = Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  const { webhook_secret_set: secretSet, ...settings } = view.settings;
  return {
    ...settings,
    private_key: '(set)',
    private_key_passphrase: '(set)',
    webhook_secret: secretSet === 'true' ? '(set)' : null,
    updated_at: view.updatedAt.toISOString(),
    health: {
      signature_accepted: h.token_obtained_at !== null,
      signature_accepted_at: iso(h.token_obtained_at),
      abono_url: `${ctx.config.publicBaseUrl}/connectors/stp/abono`,
      estado_url: `${ctx.config.publicBaseUrl}/connectors/stp/estado`,
      last_poll_at: iso(h.last_poll_at),
      last_poll_ok: h.last_poll_ok,
      polled_until: iso(h.poll_until),
      orders_sending: (open.new ?? 0) + (open.sending ?? 0),
      orders_sent: open.sent ?? 0,
      last_error: h.last_error,
      last_error_at: iso(h.last_error_at),
    },
  };
}

/** One signed consultation (the day's sent orders): STP takes the key and the empresa, or not. */
export async function checkStp(ctx: AppContext): Promise<void> {
  const connector = (await payinConnectorNamed(ctx, STP_CONNECTOR)) as StpConnector | null;
  if (!connector) return;
  try {
    await connector.client.ordersOfDay('E');
    await recordHealth(ctx, STP_CONNECTOR, { kind: 'token' });
  } catch (err) {
    if (!(err instanceof ConnectorError)) throw err;
    await recordHealth(ctx, STP_CONNECTOR, { kind: 'error', message: `check: ${err.message}` });
  }
}

/** The transfers recorded for deposits (GET /admin/connectors/stp/payments), newest first. */
export async function stpPayments(ctx: Pick<AppContext, 'db'>, status: 'applied' | 'unmatched' | null, limit: number) {
  return (await keptPayments(ctx.db, STP_CONNECTOR, status, limit)).map((r) => ({
    payment_id: r.payment_id, clabe: r.charge_reference, deposit_id: r.deposit_id, amount: r.amount, currency: r.currency,
    paid_at: r.paid_at.toISOString(), status: r.status, reason: r.reason, seen_via: r.seen_via, recorded_at: r.created_at.toISOString(),
  }));
}

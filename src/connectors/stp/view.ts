// The STP connector as the operator sees it (PUT/GET /admin/connectors/stp, `caja connector stp
// show`): its settings without private_key, private_key_passphrase and webhook_secret, and its
// health (the check after a save is the kind's afterSave, ./kind.ts).
import type { AppContext } from '../../config/context.ts';
import { connectorView } from '../store.ts';
import { STP_CONNECTOR } from './connector.ts';

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

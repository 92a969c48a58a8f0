// `caja connector <name> set|show`, loaded only for that command: the connectors' validation
// pulls in the documents, phones and certificates code no other command needs.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/db.ts';
import { validateStpConfig } from '../connectors/stp/settings.ts';
import { stpView } from '../connectors/stp/view.ts';
import { validateAdyenConfig } from '../connectors/adyen/settings.ts';
import { adyenView } from '../connectors/adyen/view.ts';
import { resendStoppedPayout } from '../cashouts/payouts.ts';
import { resendStoppedRefund } from '../refunds/provider-refunds.ts';
import { validatePixConfig } from '../connectors/pix/settings.ts';
import { pixView } from '../connectors/pix/view.ts';
import { configAuditDetail, saveConnector, secretNames } from '../connectors/store.ts';
import { ownAccountsView } from '../connectors/own-accounts.ts';
import { validateOwnAccounts } from '../domain/own-accounts.ts';
import { secretBox } from '../merchants/secrets.ts';
import { CLI_ACTOR } from './operators.ts';
import { UsageError } from './usage.ts';

/** What `caja connector <name> set|show` does per connector: its admin route's validation, storage and view. */
const CLI_CONNECTORS: Record<string, {
  label: string;
  validate(body: unknown): { ok: true; settings: Record<string, string>; secrets: Record<string, string> } | { ok: false; details: string[] };
  view(ctx: { db: Db; config: Config }): Promise<unknown>;
  savedNote: string;
}> = {
  pix: {
    label: 'Pix connector',
    validate(body) {
      const r = validatePixConfig(body);
      return r.ok ? { ok: true, settings: { ...r.settings }, secrets: { ...r.secrets } } : r;
    },
    view: pixView,
    savedNote: 'saved; running caja processes take it at once on PostgreSQL (else within CAJA_CACHE_SECONDS) and register the webhook at the PSP',
  },
  own_accounts: {
    label: 'own accounts connector',
    validate(body) {
      const r = validateOwnAccounts(body);
      return r.ok ? { ok: true, settings: { accounts: JSON.stringify(r.accounts) }, secrets: {} } : r;
    },
    view: ownAccountsView,
    savedNote: 'saved; running caja processes offer these methods at once on PostgreSQL (else within CAJA_CACHE_SECONDS)',
  },
  // STP (src/connectors/stp/): MX SPEI collections and cashouts.
  stp: {
    label: 'STP connector',
    validate(body) {
      const r = validateStpConfig(body);
      return r.ok ? { ok: true, settings: { ...r.settings }, secrets: { ...r.secrets } } : r;
    },
    view: stpView,
    savedNote: 'saved; running caja processes take it at once on PostgreSQL (else within CAJA_CACHE_SECONDS) (MX SPEI deposits and cashouts go through STP)',
  },
  // Adyen (src/connectors/adyen/): cards (hosted checkout, 3-D Secure), boleto and OXXO.
  adyen: {
    label: 'Adyen connector',
    validate(body) {
      const r = validateAdyenConfig(body);
      return r.ok ? { ok: true, settings: { ...r.settings }, secrets: { ...r.secrets } } : r;
    },
    view: (ctx) => adyenView({ ...ctx, now: () => new Date() }),
    savedNote: 'saved; running caja processes take it at once on PostgreSQL (else within CAJA_CACHE_SECONDS); point Adyen\'s standard notification webhook at health.notification_url',
  },
};

/** `caja connector <name> set|show`: the same validation and sealed storage as PUT /admin/connectors/<name>. */
export async function connectorCommand(db: Db, config: Config, name: string | undefined, rest: string[]): Promise<void> {
  const connector = name === undefined ? undefined : CLI_CONNECTORS[name];
  if (!connector) throw new UsageError(`unknown connector '${name ?? ''}' (known: ${Object.keys(CLI_CONNECTORS).join(', ')})`);
  const [action, ...args] = rest;
  if (action === 'resend-cashout' && name === 'pix') {
    // `caja connector pix resend-cashout CASHOUT_ID`: a stopped Pix send (docs/connectors.md, "Pix
    // payouts") sent again under a new idEnvio, once the operator checked at the PSP that it never left.
    const id = Number(args[0]);
    if (!Number.isSafeInteger(id) || id < 1) throw new UsageError('connector pix resend-cashout needs a cashout id');
    const done = await resendStoppedPayout(db, id, CLI_ACTOR);
    if (!done) throw new UsageError(`cashout ${id} has no stopped Pix send (or is settled already)`);
    console.log(JSON.stringify({ cashout_id: id, stopped_reference: done.from, new_reference: done.to }, null, 2));
    console.error('sent under its new idEnvio by the running caja processes\' next pass');
    return;
  }
  if (action === 'resend' && (name === 'stp' || name === 'pix')) {
    // `caja connector stp resend CASHOUT_ID`, `caja connector pix resend REFUND_ID`: a stopped
    // order or devolução sent again under a new reference (docs/operations.md, "After a restore"),
    // once the operator checked at the provider that it never left.
    const what = name === 'stp' ? 'cashout' : 'refund';
    const id = Number(args[0]);
    if (!Number.isSafeInteger(id) || id < 1) throw new UsageError(`connector ${name} resend needs a ${what} id`);
    const done = name === 'stp' ? await resendStoppedPayout(db, id, CLI_ACTOR) : await resendStoppedRefund(db, id, CLI_ACTOR);
    if (!done) throw new UsageError(`${what} ${id} has no stopped ${name === 'stp' ? 'STP order' : 'Pix devolução'} (or is settled already)`);
    console.log(JSON.stringify({ [`${what}_id`]: id, stopped_reference: done.from, new_reference: done.to }, null, 2));
    console.error('sent under its new reference by the running caja processes\' next pass');
    return;
  }
  const { values } = parseArgs({ args, options: { file: { type: 'string' } } });
  if (action === 'set') {
    if (!values.file) throw new UsageError(`connector ${name} set needs --file CONFIG.json`);
    let body: unknown;
    try {
      body = JSON.parse(readFileSync(values.file, 'utf8'));
    } catch (err) {
      throw new UsageError(`${values.file}: ${err instanceof Error ? err.message : err}`);
    }
    const result = connector.validate(body);
    if (!result.ok) throw new UsageError(`invalid ${connector.label} configuration:\n  ${result.details.join('\n  ')}`);
    await saveConnector({ db, box: secretBox(config.masterKey), now: () => new Date() }, name!, result.settings, result.secrets, {
      ops: CLI_ACTOR, action: 'connector.configured', subject: `connector:${name}`, detail: configAuditDetail(result.settings, secretNames(result.secrets)),
    });
    console.error(connector.savedNote);
  } else if (action !== 'show') {
    throw new UsageError(`unknown connector ${name} command '${action ?? ''}'`);
  }
  const view = await connector.view({ db, config });
  if (!view) throw new UsageError(`the ${connector.label} is not configured`);
  console.log(JSON.stringify(view, null, 2));
}


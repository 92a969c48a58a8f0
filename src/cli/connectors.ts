// `caja connector <name> set|show`, loaded only for that command: the connectors' validation
// pulls in the documents, phones and certificates code no other command needs.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/db.ts';
import { resendStoppedPayout } from '../cashouts/payouts.ts';
import { resendStoppedRefund } from '../refunds/provider-refunds.ts';
import { connectorKind, connectorKinds } from '../connectors/providers.ts';
import { configAuditDetail, saveConnector, secretNames } from '../connectors/store.ts';
import { secretBox } from '../domain/secrets.ts';
import { CLI_ACTOR } from './operators.ts';
import { UsageError } from './usage.ts';

/** The kinds `caja connector <name> …` knows: those that declare settings (src/connectors/providers.ts). */
const configurable = () => connectorKinds().filter((k) => k.settings);

/** `caja help`'s lines for `caja connector …`, one set of them per registered kind that declares settings. */
export function connectorUsage(): string {
  const line = (command: string, words: string) => (command.length <= 42 ? `  ${command.padEnd(44)}${words}` : `  ${command}\n  ${''.padEnd(44)}${words}`);
  return configurable().flatMap((k) => {
    const help = k.cli?.help ?? { set: `configure the ${k.label} connector` };
    return [
      line(`caja connector ${k.name} set --file CONFIG.json`, `${help.set} (the body of PUT /admin/connectors/${k.name})`),
      line(`caja connector ${k.name} show`, help.show ?? 'its configuration (no secrets) and health'),
      ...Object.entries(k.cli?.resend ?? {}).map(([action, r]) =>
        line(`caja connector ${k.name} ${action} ${r.what.toUpperCase()}_ID`, `send a stopped ${r.names} again under a new reference (checked at the provider first)`)),
    ];
  }).join('\n');
}

/** `caja connector <name> set|show`: the same validation and sealed storage as PUT /admin/connectors/<name>. */
export async function connectorCommand(db: Db, config: Config, name: string | undefined, rest: string[]): Promise<void> {
  const kind = name === undefined ? undefined : connectorKind(name);
  const settings = kind?.settings;
  if (!kind || !settings) throw new UsageError(`unknown connector '${name ?? ''}' (known: ${configurable().map((k) => k.name).join(', ')})`);
  const label = `${kind.label} connector`;
  const [action, ...args] = rest;
  const resend = action === undefined ? undefined : kind.cli?.resend?.[action];
  if (resend) {
    // `caja connector stp resend CASHOUT_ID`, `caja connector pix resend REFUND_ID`,
    // `caja connector pix resend-cashout CASHOUT_ID`: a stopped order, devolução or send sent
    // again under a new reference (docs/operations.md, "After a restore"; docs/connectors.md,
    // "Pix payouts"), once the operator checked at the provider that it never left.
    const what = resend.what;
    const id = Number(args[0]);
    if (!Number.isSafeInteger(id) || id < 1) throw new UsageError(`connector ${name} ${action} needs a ${what} id`);
    const done = what === 'cashout' ? await resendStoppedPayout(db, id, CLI_ACTOR) : await resendStoppedRefund(db, id, CLI_ACTOR);
    if (!done) throw new UsageError(`${what} ${id} has no stopped ${resend.names} (or is settled already)`);
    console.log(JSON.stringify({ [`${what}_id`]: id, stopped_reference: done.from, new_reference: done.to }, null, 2));
    console.error(`sent under its new ${resend.reference ?? 'reference'} by the running caja processes' next pass`);
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
    const result = settings.validate(body);
    if (!result.ok) throw new UsageError(`invalid ${label} configuration:\n  ${result.details.join('\n  ')}`);
    await saveConnector({ db, box: secretBox(config.masterKey), now: () => new Date() }, kind.name, result.settings, result.secrets, {
      ops: CLI_ACTOR, action: 'connector.configured', subject: `connector:${kind.name}`,
      detail: settings.auditDetail ? settings.auditDetail(result) : configAuditDetail(result.settings, secretNames(result.secrets)),
    });
    console.error(kind.cli?.savedNote ?? 'saved; running caja processes take it at once on PostgreSQL (else within CAJA_CACHE_SECONDS)');
  } else if (action !== 'show') {
    throw new UsageError(`unknown connector ${name} command '${action ?? ''}'`);
  }
  const view = await settings.view({ db, config });
  if (!view) throw new UsageError(`the ${label} is not configured`);
  console.log(JSON.stringify(view, null, 2));
}


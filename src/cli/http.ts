// The CLI's HTTP commands: they talk to a running caja with a merchant's credentials (see
// profile.ts), through the SDK, so they work beside the server whatever its database.
//
//   caja listen --forward-to URL      follow GET /v3/events and POST each event, signed, to URL
//   caja trigger EVENT                create staging objects and drive the sandbox to EVENT
//   caja deposits get ID | list       read deposits
//   caja sign                         the signature and string to sign of a body
//   caja profile save | show          keep a URL and credentials in ~/.config/caja
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Caja, CajaConflictError, signNotification, v3AuthHeaders, v3StringToSign, payloadSignature, xDateNow, type CajaEvent } from '../../sdk/src/index.ts';
import { configPath, loadProfile, type Profile, ProfileError, saveProfile } from './profile.ts';

export const HTTP_USAGE = `HTTP commands (a running caja, a merchant's credentials from the environment or a profile):
  caja profile save --url URL --credentials FILE [--profile NAME]   FILE: the JSON merchant creation prints
  caja profile show [--profile NAME]
  caja listen --forward-to URL [--after CURSOR | --from-start] [--interval MS]
  caja trigger deposit.completed|deposit.cancelled|refund.completed|cashout.rejected
  caja deposits get ID
  caja deposits list [--status PENDING|APPROVED|COMPLETED|CANCELLED] [--limit N] [--before ID] [--json]
  caja sign [--body JSON | --body-file FILE] [--set deposits|cashouts] [--date X-DATE] [--payload]

Environment: CAJA_URL, CAJA_LOGIN + CAJA_SECRET (deposits), CAJA_CASHOUT_LOGIN + CAJA_CASHOUT_PASS +
CAJA_CASHOUT_SECRET, CAJA_READ_ONLY_KEY, CAJA_PROFILE; they override the profile's values.`;

export const HTTP_COMMANDS = ['profile', 'listen', 'trigger', 'deposits', 'sign'];

export class HttpUsageError extends Error {}

const TRIGGERS = ['deposit.completed', 'deposit.cancelled', 'refund.completed', 'cashout.rejected'] as const;

function clientOf(p: Profile): Caja {
  return new Caja({
    baseUrl: p.url,
    deposits: p.deposits && { login: p.deposits.login, secretKey: p.deposits.secret_key },
    cashouts: p.cashouts && { login: p.cashouts.login, pass: p.cashouts.pass, secretKey: p.cashouts.secret_key },
    readOnlyKey: p.read_only_key,
  });
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new ProfileError(`this command needs the ${what} credentials (environment or profile)`);
  return value;
}

export async function runHttpCommand(argv: string[], out: (line: string) => void = console.log, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      profile: { type: 'string' },
      url: { type: 'string' },
      credentials: { type: 'string' },
      'forward-to': { type: 'string' },
      after: { type: 'string' },
      'from-start': { type: 'boolean', default: false },
      interval: { type: 'string', default: '1000' },
      status: { type: 'string' },
      limit: { type: 'string', default: '20' },
      before: { type: 'string' },
      json: { type: 'boolean', default: false },
      body: { type: 'string' },
      'body-file': { type: 'string' },
      set: { type: 'string', default: 'deposits' },
      date: { type: 'string' },
      payload: { type: 'boolean', default: false },
    },
  });
  const [sub, arg] = positionals;
  if (command === 'profile') {
    if (sub === 'save') {
      if (!values.url || !values.credentials) throw new HttpUsageError('profile save needs --url and --credentials');
      const path = saveProfile(values.profile ?? 'default', values.url, readFileSync(values.credentials, 'utf8'), env);
      out(`saved profile '${values.profile ?? 'default'}' in ${path}`);
      return;
    }
    if (sub === 'show') {
      const p = loadProfile(values.profile, env);
      // Secrets stay out of the terminal: the logins say which merchant this is.
      out(JSON.stringify({ config: configPath(env), url: p.url, deposits_login: p.deposits?.login, cashouts_login: p.cashouts?.login, read_only_key: p.read_only_key ? 'set' : undefined }, null, 2));
      return;
    }
    throw new HttpUsageError(`unknown profile command '${sub ?? ''}'`);
  }
  if (command === 'sign') return sign(values, out, env);
  const profile = loadProfile(values.profile, env);
  const caja = clientOf(profile);
  if (command === 'deposits') {
    need(profile.deposits, 'deposits');
    if (sub === 'get') {
      if (!arg) throw new HttpUsageError('deposits get needs a deposit id');
      out(JSON.stringify(await caja.deposits.get(arg), null, 2));
      return;
    }
    if (sub === 'list') {
      const page = await caja.deposits.list({ status: values.status as never, limit: Number(values.limit), before: values.before });
      if (values.json) {
        out(JSON.stringify(page, null, 2));
        return;
      }
      for (const d of page.data ?? []) {
        out([d.deposit_id, d.status, d.country, d.local_amount, d.currency, d.payment_method ?? '-', d.times?.created_at].join('\t'));
      }
      if (page.next_before) out(`more: caja deposits list --limit ${values.limit} --before ${page.next_before}`);
      return;
    }
    throw new HttpUsageError(`unknown deposits command '${sub ?? ''}'`);
  }
  if (command === 'trigger') return trigger(caja, profile, sub, out);
  if (command === 'listen') {
    if (!values['forward-to']) throw new HttpUsageError('listen needs --forward-to URL');
    return listen(caja, profile, values['forward-to'], { after: values.after, fromStart: values['from-start']!, intervalMs: Number(values.interval) }, out);
  }
  throw new HttpUsageError(`unknown command '${command}'`);
}

function sign(v: { body?: string; 'body-file'?: string; set?: string; date?: string; payload?: boolean; profile?: string }, out: (line: string) => void, env: NodeJS.ProcessEnv): void {
  const body = v['body-file'] !== undefined ? readFileSync(v['body-file'], 'utf8') : (v.body ?? '');
  if (v.set !== 'deposits' && v.set !== 'cashouts') throw new HttpUsageError('--set must be deposits or cashouts');
  const profile = loadProfile(v.profile, env);
  const creds = need(v.set === 'deposits' ? profile.deposits : profile.cashouts, v.set);
  if (v.payload) {
    // Cashout operations: the HMAC covers the raw body alone (with login and pass inside it).
    out(`string_to_sign: ${JSON.stringify(body)}`);
    out(`Payload-Signature: ${payloadSignature(creds.secret_key, body)}`);
    return;
  }
  const xDate = v.date ?? xDateNow();
  const headers = v3AuthHeaders(creds.login, creds.secret_key, body, xDate);
  out(`string_to_sign: ${JSON.stringify(v3StringToSign(xDate, creds.login, body))}`);
  for (const [k, value] of Object.entries(headers)) out(`${k}: ${value}`);
}

const BR_PIX = {
  country: 'BR', amount: '100.00', currency: 'BRL', payment_method: 'IX',
  payer: { document: '52998224725', first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
};

async function trigger(caja: Caja, profile: Profile, event: string | undefined, out: (line: string) => void): Promise<void> {
  if (!TRIGGERS.includes(event as (typeof TRIGGERS)[number])) throw new HttpUsageError(`trigger one of ${TRIGGERS.join(', ')}`);
  need(profile.deposits, 'deposits');
  const completedDeposit = async () => {
    const d = await caja.deposits.create(BR_PIX);
    await caja.sandbox.deposits.approve(d.deposit_id!);
    out(`deposit ${d.deposit_id} created (BR, IX, 100.00 BRL) and approved in the sandbox: COMPLETED`);
    return d.deposit_id!;
  };
  if (event === 'deposit.completed') {
    await completedDeposit();
  } else if (event === 'deposit.cancelled') {
    const d = await caja.deposits.create(BR_PIX);
    await caja.sandbox.deposits.cancel(d.deposit_id!);
    out(`deposit ${d.deposit_id} created (BR, IX, 100.00 BRL) and cancelled in the sandbox: CANCELLED`);
  } else if (event === 'refund.completed') {
    const depositId = await completedDeposit();
    const r = await caja.refunds.create({ deposit_id: depositId, amount: '10.00', bank_account: { beneficiary: 'Maria Souza', bank_code: '260', branch: '0001', account_number: '12345-6', account_type: 'CHECKING' } });
    const refundId = r.refund_id!;
    if ((await caja.refunds.get(refundId)).status === 'PENDING') await caja.sandbox.refunds.complete(refundId);
    out(`refund ${refundId} of 10.00 BRL on deposit ${depositId} completed in the sandbox`);
  } else {
    need(profile.cashouts, 'cashouts');
    const externalId = `cli-${Date.now()}`;
    let cashoutId: number;
    try {
      ({ cashout_id: cashoutId } = await caja.cashouts.create({
        external_id: externalId, country: 'BR', currency: 'USD', amount: '1.00', document_id: '52998224725', beneficiary_name: 'Maria',
        beneficiary_lastname: 'Souza', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C',
      }));
    } catch (err) {
      if (err instanceof CajaConflictError && err.code === 514) {
        throw new ProfileError('the available balance cannot pay 1.00 USD out: run `caja trigger deposit.completed` first (it credits the balance), or ask the operator for an adjustment');
      }
      throw err;
    }
    await caja.sandbox.cashouts.deliver(cashoutId);
    await caja.sandbox.cashouts.reject(cashoutId);
    out(`cashout ${cashoutId} (external_id ${externalId}, 1.00 USD) created, delivered and rejected by the staging bank`);
  }
}

/** The body caja's v3 notifications carry for the event's subject. */
function notificationBody(e: CajaEvent): string {
  return JSON.stringify({ [`${e.subject_type}_id`]: e.subject_id });
}

async function listen(caja: Caja, profile: Profile, forwardTo: string, o: { after?: string; fromStart: boolean; intervalMs: number }, out: (line: string) => void): Promise<void> {
  const deposits = need(profile.deposits, 'deposits');
  let cursor = o.after ?? '0';
  if (o.after === undefined && !o.fromStart) {
    // Like a webhook, listen starts with what happens next: skip to the end of the feed.
    for (;;) {
      const page = await caja.events.list({ after: cursor, limit: 500 });
      if (!page.events?.length) break;
      cursor = page.next_cursor!;
    }
  }
  out(`Ready: forwarding events after ${cursor} from ${profile.url} to ${forwardTo} (Ctrl-C to stop)`);
  let stopping = false;
  const stop = () => {
    stopping = true;
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    while (!stopping) {
      const page = await caja.events.list({ after: cursor, limit: 100 });
      for (const e of page.events ?? []) {
        const body = notificationBody(e);
        // Signed as caja signs notifications: cashout ones with the cashouts key.
        const secret = e.subject_type === 'cashout' ? profile.cashouts?.secret_key : deposits.secret_key;
        const started = Date.now();
        let answer: string;
        try {
          const r = await fetch(forwardTo, {
            method: 'POST',
            headers: {
              'Content-Type': 'application/json', 'User-Agent': 'caja-cli-listen', 'Caja-Event-Id': String(e.id), 'Caja-Event-Type': e.type!,
              ...(secret ? { 'Caja-Signature': signNotification(body, secret) } : {}),
            },
            body,
            signal: AbortSignal.timeout(10000),
          });
          await r.body?.cancel();
          answer = `${r.status}${secret ? '' : ' (unsigned: no cashouts secret_key)'}`;
        } catch (err) {
          answer = `error: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`;
        }
        const status = (e.data as { status?: string } | undefined)?.status;
        out(`${e.created_at}  ${e.id}  ${e.type}  ${e.subject_type} ${e.subject_id}${status ? ` ${status}` : ''}  ${body}  -> ${answer} (${Date.now() - started} ms)`);
      }
      cursor = page.next_cursor ?? cursor;
      if (!page.events?.length) await new Promise((r) => setTimeout(r, o.intervalMs));
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  out(`stopped; resume with: caja listen --forward-to ${forwardTo} --after ${cursor}`);
}

// Account validation benchmark, for a merchant that validates every beneficiary before a payout
// batch: signed POST /v5/account/validate per second over a mix of countries and outcomes
// (valid, check digit wrong, unknown bank, simulated "not found"), with two baselines measured
// in the same run:
//   signed GET /v5/me   the same authentication (X-Date, cashouts login look-up, HMAC) and
//                       nothing else, so the ratio is what validation itself costs
//   rules in-process    validateBankAccount over the same mix with no HTTP, against
//                       JSON.parse of the same bodies (the least a server does per request)
// Alone: `node --import tsx bench/validation.ts` (DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres).
import { createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { validateBankAccount } from '../src/domain/bank-accounts.ts';
import { clabeCheckDigit } from '../src/domain/clabe.ts';
import { ADMIN_TOKEN, CONNECTIONS, DURATION, freshDatabase, runHttp, startServer, summary, WARMUP } from './deposits.ts';

const clabe = (bank: string, account11: string) => `${bank}180${account11}${clabeCheckDigit(`${bank}180${account11}`)}`;

/** A payout batch's beneficiaries: mostly valid accounts, some typos and unknown banks. */
function bodies(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < 1000; i++) {
    const n = String(1_000_000 + i * 7919).padStart(11, '0');
    switch (i % 5) {
      case 0:
        out.push({ country: 'MX', document: 'GODE561231GR8', amount: '120.50', bank_account: { account: clabe('012', n), bank_code: '40012' } });
        break;
      case 1:
        out.push({ country: 'BR', document: '529.982.247-25', first_name: 'Maria', bank_account: { bank_code: '341', branch: '2545', account: '02366-1', account_type: 'C' } });
        break;
      case 2:
        out.push({ country: 'AR', document: '20-12345678-6', bank_account: { account: '2850590940090418135201' } });
        break;
      case 3: // a typo: the CLABE check digit is off by one
        out.push({ country: 'MX', document: 'GODE561231GR8', bank_account: { account: clabe('012', n).slice(0, 17) + ((Number(clabe('012', n)[17]) + 1) % 10) } });
        break;
      default: // the simulated registry has no such account
        out.push({ country: 'MX', document: 'GODE561231GR8', bank_account: { account: clabe('014', `${n.slice(0, 7)}0000`) } });
    }
  }
  return out;
}

function signed(login: string, secret: string, method: string, path: string, list: string[]) {
  let n = 0;
  return [{
    method,
    path,
    setupRequest: (req: Record<string, unknown>) => {
      const body = list.length ? list[n++ % list.length]! : '';
      const xDate = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const sig = createHmac('sha256', secret).update(xDate + login + body).digest('hex');
      const headers: Record<string, string> = { 'x-date': xDate, 'x-login': login, authorization: `SVC ${sig}` };
      if (body) headers['content-type'] = 'application/json';
      return { ...req, ...(body ? { body } : {}), headers };
    },
  }];
}

/** Calls per second of fn over the items, for about `seconds`. */
function perSecond<T>(items: readonly T[], fn: (item: T) => unknown, seconds: number): number {
  let calls = 0;
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  while (performance.now() < end) {
    for (const item of items) fn(item);
    calls += items.length;
  }
  return Math.round(calls / ((performance.now() - t0) / 1000));
}

export async function benchValidation(): Promise<Record<string, unknown>> {
  const list = bodies();
  const raw = list.map((b) => JSON.stringify(b));

  // In-process: the rules alone, against parsing the same bodies.
  const accounts = list.map((b) => [b.country as string, b.bank_account as { account: string; bank_code?: string; branch?: string; account_type?: string }] as const);
  const rulesOnly = perSecond(accounts, ([country, a]) => validateBankAccount(country, { account: a.account, bankCode: a.bank_code, branch: a.branch, accountType: a.account_type }), 2);
  const parseOnly = perSecond(raw, (text) => JSON.parse(text), 2);

  const db = await freshDatabase();
  const { url, child } = await startServer(db.url);
  try {
    const res = await fetch(`${url}/admin/merchants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Batch validator' }),
    });
    const creds = (await res.json()) as { cashouts: { login: string; secret_key: string } };
    const { login, secret_key: secret } = creds.cashouts;

    await runHttp(url, WARMUP, signed(login, secret, 'POST', '/v5/account/validate', raw));
    const validate = summary(await runHttp(url, DURATION, signed(login, secret, 'POST', '/v5/account/validate', raw)));
    const me = summary(await runHttp(url, DURATION, signed(login, secret, 'GET', '/v5/me', [])));
    // Every answer is a 204 or a 400 (302 for the typos and the unknown accounts); autocannon
    // counts 4xx as non-2xx, so errors here are transport errors only.
    const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);
    const result = {
      connections: CONNECTIONS,
      seconds: DURATION,
      account_validate: { rps: validate.rps, p50_ms: validate.p50_ms, p99_ms: validate.p99_ms, requests: validate.requests },
      baseline_v5_me: me,
      rules_in_process_per_s: rulesOnly,
      json_parse_in_process_per_s: parseOnly,
      ratios: {
        validate_vs_signed_me: ratio(validate.rps, me.rps),
        rules_vs_json_parse: ratio(rulesOnly, parseOnly),
      },
    };
    console.log(`POST /v5/account/validate: ${validate.rps} req/s (p50 ${validate.p50_ms} ms, p99 ${validate.p99_ms} ms)`);
    console.log(`signed GET /v5/me: ${me.rps} req/s (p50 ${me.p50_ms} ms, p99 ${me.p99_ms} ms)`);
    console.log(`rules in-process: ${rulesOnly}/s; JSON.parse of the same bodies: ${parseOnly}/s`);
    console.log(`ratios: validate/me ${result.ratios.validate_vs_signed_me}, rules/JSON.parse ${result.ratios.rules_vs_json_parse}`);
    return result;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await db.drop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = await benchValidation();
  console.log(JSON.stringify(r, null, 2));
  process.exit(0);
}

// The "own accounts" connector: bank transfer and branch deposit methods collected into bank
// accounts the operator really holds (PUT /admin/connectors/own_accounts). It asks no provider
// anything: a charge is the operator's account plus the deposit's reference, and only the bank
// statement shows that the customer paid, so its deposits stay PENDING until the operator confirms
// them (reconciliation against statements is how that becomes automatic). Its refunds stay PENDING
// too: the money goes back by a transfer the operator makes from that account.
import { methodsForCountry } from '../domain/catalog.ts';
import { ACCEPTED_COUNTRY_CODES } from '../domain/countries.ts';
import { collectsIntoOwnAccount, type OwnAccount, ownAccountPaymentInfo, validateOwnAccounts } from '../domain/own-accounts.ts';
import { confirmedOutsideProvider, ConnectorError, type PayinConnector, paymentInfoInput } from './payin.ts';
import type { ConnectorKind } from './kind.ts';
import { connectorView, type StoredConnector } from './store.ts';
import type { AppContext } from '../config/context.ts';

export const OWN_ACCOUNTS_CONNECTOR = 'own_accounts';

/** The accounts of a stored configuration (kept as JSON text among its settings). */
export function storedAccounts(stored: Pick<StoredConnector, 'settings'>): OwnAccount[] {
  try {
    const parsed = JSON.parse(stored.settings.accounts ?? '[]') as unknown;
    return Array.isArray(parsed) ? (parsed as OwnAccount[]) : [];
  } catch {
    return [];
  }
}

const pairKey = (country: string, method: string) => `${country}|${method}`;

export function ownAccountsConnector(accounts: OwnAccount[]): PayinConnector {
  const byPair = new Map(accounts.map((a) => [pairKey(a.country, a.method), a]));
  return {
    ...confirmedOutsideProvider,
    name: OWN_ACCOUNTS_CONNECTOR,
    simulated: false,
    async createCharge(order) {
      const account = byPair.get(pairKey(order.method.country, order.method.code));
      // The registry only routes configured pairs here; a miss means the list changed under us.
      if (!account) throw new ConnectorError('not_configured', `no own account for ${order.method.country} ${order.method.code}`);
      const paymentInfo = ownAccountPaymentInfo(paymentInfoInput(order), account);
      // The reference customers quote is derived from the deposit id (SPEI's 7 digits repeat
      // every million deposits), so nothing more is stored for it.
      return { paymentInfo, reference: null };
    },
    async health() {
      return { ok: true, accounts: accounts.length };
    },
  };
}

const account = {
  type: 'object',
  properties: {
    country: { type: 'string' }, method: { type: 'string' }, beneficiary_name: { type: 'string' },
    agency: { type: 'string' }, account: { type: 'string' }, document: { type: 'string' },
  },
} as const;

export const ownAccountsKind: ConnectorKind = {
  name: OWN_ACCOUNTS_CONNECTOR,
  label: 'own accounts',
  // Everything it could serve (the registry's fast path); what it does serve is its list.
  serves: ACCEPTED_COUNTRY_CODES.flatMap((country) =>
    methodsForCountry(country).filter(collectsIntoOwnAccount).map((m) => ({ country, method: m.code })),
  ),
  servesOf: (stored) => storedAccounts(stored).map((a) => ({ country: a.country, method: a.method })),
  build: (_ctx, stored) => ownAccountsConnector(storedAccounts(stored)),
  // Only the bank statement shows a payment: the operator's confirmation matches on the deposit's reference.
  matchKey: 'charge_reference',
  statementAccounts: (stored) => storedAccounts(stored).flatMap((a) => (a.agency ? [a.account, `${a.agency}${a.account}`] : [a.account])),
  settings: {
    // The console's list form: one account per (country, method), set or removed one at a time.
    list: {
      fields: [
        { name: 'country', key: true }, { name: 'method', key: true }, { name: 'beneficiary_name' },
        { name: 'agency', optional: true }, { name: 'account' }, { name: 'document', optional: true },
      ],
      path: 'accounts',
      rows: (stored) => storedAccounts(stored) as unknown as Record<string, string | undefined>[],
      audit: { action: 'connector.own_account', row: 'account' },
      words: {
        en: {
          title: 'Own accounts',
          hint: 'The bank accounts the operator holds for bank transfer and branch deposit methods: one per country and method. Their deposits complete when the bank statement shows the payment.',
          set: 'Add or replace the account of a country and method',
          labels: { country: 'Country', method: 'Method' },
          hints: { agency: 'Brazil: the branch (agência), required there.', document: "Brazil: the operator's CNPJ, required there." },
        },
        es: {
          title: 'Cuentas propias',
          hint: 'Las cuentas bancarias del operador para los métodos de transferencia y depósito en sucursal: una por país y método. Sus depósitos se completan cuando el extracto bancario muestra el pago.',
          set: 'Agregar o reemplazar la cuenta de un país y método',
          labels: { country: 'País', method: 'Método' },
          hints: { agency: 'Brasil: la sucursal (agência), obligatoria allí.', document: 'Brasil: el CNPJ del operador, obligatorio allí.' },
        },
        pt: {
          title: 'Contas próprias',
          hint: 'As contas bancárias do operador para os métodos de transferência e depósito em agência: uma por país e método. Os depósitos são concluídos quando o extrato bancário mostra o pagamento.',
          set: 'Adicionar ou substituir a conta de um país e método',
          labels: { country: 'País', method: 'Método' },
          hints: { agency: 'Brasil: a agência, obrigatória lá.', document: 'Brasil: o CNPJ do operador, obrigatório lá.' },
        },
      },
    },
    validate(body) {
      const r = validateOwnAccounts(body);
      return r.ok ? { ok: true, settings: { accounts: JSON.stringify(r.accounts) }, secrets: {} } : r;
    },
    view: ownAccountsView,
    auditDetail: (v) => ({ accounts: JSON.parse(v.settings.accounts!) as unknown }),
  },
  admin: {
    summaries: {
      put: 'Configure the bank accounts the operator holds for bank transfer and branch deposit methods: {accounts: [{country, method, beneficiary_name, agency?, account, document?}]}',
      putDescription:
        'Replaces the whole list. Each (country, method) gets one account; BR needs agency and the CNPJ as document, MX a CLABE as account. ' +
        'Deposits of these methods show the account and the deposit reference and stay PENDING until the operator confirms the payment on the bank statement.',
      get: 'The bank accounts the operator holds for bank transfer and branch deposit methods',
    },
    configBody: { type: 'object', properties: { accounts: { type: 'array', items: account } } },
    viewSchema: {
      type: 'object',
      required: ['accounts', 'updated_at'],
      properties: { accounts: { type: 'array', items: { ...account, required: ['country', 'method', 'beneficiary_name', 'account'] } }, updated_at: { type: 'string', format: 'date-time' } },
    },
    invalid: 'Invalid own accounts configuration',
    notConfigured: 'No own accounts are configured',
  },
  cli: {
    savedNote: 'saved; running caja processes offer these methods at once on PostgreSQL (else within CAJA_CACHE_SECONDS)',
    help: { set: "the operator's own bank accounts", show: 'the accounts configured' },
  },
};

/** The list as the operator sees it (GET /admin/connectors/own_accounts, `caja connector own_accounts show`). */
export async function ownAccountsView(ctx: Pick<AppContext, 'db'>) {
  const v = await connectorView(ctx, OWN_ACCOUNTS_CONNECTOR);
  return v ? { accounts: storedAccounts(v), updated_at: v.updatedAt.toISOString() } : null;
}

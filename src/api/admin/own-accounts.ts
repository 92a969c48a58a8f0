// The operator's own collection accounts (the "own accounts" connector, src/connectors/own-accounts.ts):
// PUT /admin/connectors/own_accounts replaces the list, GET answers it. Account numbers are shown
// to paying customers, so nothing here is secret.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3Errors } from '../../http/errors.ts';
import { validateOwnAccounts } from '../../domain/own-accounts.ts';
import { OWN_ACCOUNTS_CONNECTOR, ownAccountsView } from '../../connectors/own-accounts.ts';
import { saveConnector } from '../../connectors/store.ts';
import { v3ErrorSchema } from '../v3/face.ts';
import { tokenAudit } from './auth.ts';

const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema };

const account = {
  type: 'object',
  properties: {
    country: { type: 'string' }, method: { type: 'string' }, beneficiary_name: { type: 'string' },
    agency: { type: 'string' }, account: { type: 'string' }, document: { type: 'string' },
  },
} as const;

const accountsView = {
  type: 'object',
  required: ['accounts', 'updated_at'],
  properties: { accounts: { type: 'array', items: { ...account, required: ['country', 'method', 'beneficiary_name', 'account'] } }, updated_at: { type: 'string', format: 'date-time' } },
} as const;

export function registerAdminOwnAccounts(app: FastifyInstance, ctx: AppContext): void {
  app.put(
    '/admin/connectors/own_accounts',
    {
      schema: {
        tags: ['admin'],
        summary: 'Configure the bank accounts the operator holds for bank transfer and branch deposit methods: {accounts: [{country, method, beneficiary_name, agency?, account, document?}]}',
        description:
          'Replaces the whole list. Each (country, method) gets one account; BR needs agency and the CNPJ as document, MX a CLABE as account. ' +
          'Deposits of these methods show the account and the deposit reference and stay PENDING until the operator confirms the payment on the bank statement.',
        security: [{ adminToken: [] }],
        body: { type: 'object', properties: { accounts: { type: 'array', items: account } } },
        response: { 200: accountsView, ...errors },
      },
    },
    async (request) => {
      const result = validateOwnAccounts(request.body);
      if (!result.ok) throw v3Errors.validation(result.details, 'Invalid own accounts configuration');
      await saveConnector(ctx, OWN_ACCOUNTS_CONNECTOR, { accounts: JSON.stringify(result.accounts) }, {},
        tokenAudit(request, 'connector.configured', { subject: `connector:${OWN_ACCOUNTS_CONNECTOR}`, detail: { accounts: result.accounts } }));
      return ownAccountsView(ctx);
    },
  );

  app.get(
    '/admin/connectors/own_accounts',
    { schema: { tags: ['admin'], summary: 'The bank accounts the operator holds for bank transfer and branch deposit methods', security: [{ adminToken: [] }], response: { 200: accountsView, ...errors } } },
    async () => {
      const v = await ownAccountsView(ctx);
      if (!v) throw v3Errors.notFound('No own accounts are configured');
      return v;
    },
  );
}

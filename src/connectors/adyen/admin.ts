// The Adyen kind's admin words and schemas (src/connectors/kind.ts `admin`): PUT/GET
// /admin/connectors/adyen, …/payments and …/disputes, served by src/api/admin/connector-routes.ts.
import type { ConnectorKind } from '../kind.ts';

const when = { type: ['string', 'null'] } as const;

const adyenViewSchema = {
  type: 'object',
  required: ['merchant_account', 'endpoint', 'api_url', 'methods', 'api_key', 'hmac_key', 'hmac_key_next', 'capture', 'updated_at', 'health'],
  properties: {
    merchant_account: { type: 'string' }, endpoint: { type: 'string', enum: ['test', 'live', 'custom'] }, api_url: { type: 'string' }, live_prefix: { type: 'string' },
    methods: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }, ca: { type: 'string' },
    api_key: { type: 'string', enum: ['(set)'], description: 'never answered' },
    hmac_key: { type: 'string', enum: ['(set)'], description: 'never answered' },
    hmac_key_next: { type: ['string', 'null'], enum: ['(set)', null], description: 'never answered; null when no second key is set' },
    capture: { type: 'string', enum: ['immediate'] },
    updated_at: { type: 'string' },
    health: {
      type: 'object',
      properties: {
        notification_url: { type: 'string' }, last_authorisation_at: when, last_notification_at: when,
        refused_last_24h: { type: 'integer' }, refunds_failed_last_24h: { type: 'integer' }, last_error: when, last_error_at: when,
      },
    },
  },
} as const;

const paymentSchema = {
  type: 'object',
  properties: {
    payment_id: { type: 'string', description: 'Adyen pspReference' }, charge_reference: when, deposit_id: { type: ['integer', 'null'] },
    amount: { type: 'string' }, currency: { type: 'string' }, paid_at: { type: 'string' }, status: { type: 'string', enum: ['applied', 'unmatched'] },
    reason: when, seen_via: { type: 'string' }, recorded_at: { type: 'string' },
  },
} as const;

const disputeSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, deposit_id: { type: 'integer' }, payment_reference: { type: 'string' },
    status: { type: 'string', enum: ['notified', 'charged', 'reversed'] }, reason: when, reason_code: when,
    disputed_amount: { type: 'string' }, disputed_currency: { type: 'string' },
    return_id: { type: ['integer', 'null'], description: 'The bank-initiated return (kind chargeback) that took the money, while charged or reversed' },
    debit: { ...when, description: 'What the return took from the merchant, in debit_currency' }, debit_currency: when,
    deadline_at: { ...when, description: 'Until when the chargeback may be defended (in the Customer Area)' }, updated_at: { type: 'string' },
  },
} as const;

const configBody = {
  type: 'object',
  properties: {
    api_key: { type: 'string' }, merchant_account: { type: 'string' }, hmac_key: { type: 'string' }, hmac_key_next: { type: ['string', 'null'] },
    endpoint: { type: 'string' }, live_prefix: { type: 'string' }, api_url: { type: ['string', 'null'] }, ca: { type: ['string', 'null'] },
    methods: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
  },
} as const;

export const ADYEN_ADMIN: NonNullable<ConnectorKind['admin']> = {
  summaries: {
    put: 'Configure the Adyen connector (cards with 3-D Secure on the hosted checkout, boleto, OXXO): {api_key, merchant_account, hmac_key, hmac_key_next?, endpoint test|live, live_prefix?, methods {BR: [...], MX: [...]}}',
    putDescription: 'Secrets (api_key, hmac_key, hmac_key_next) are encrypted at rest and never answered. Production offers exactly the methods listed. Adyen posts its notifications to health.notification_url.',
    get: 'The Adyen connector: configuration without secrets, and health (last authorisation, last notification, failures)',
    payments: 'Payments Adyen authorised for deposits, newest first',
  },
  configBody,
  viewSchema: adyenViewSchema,
  payments: {
    schema: paymentSchema,
    row: (r) => ({
      payment_id: r.payment_id, charge_reference: r.charge_reference, deposit_id: r.deposit_id, amount: r.amount, currency: r.currency,
      paid_at: r.paid_at.toISOString(), status: r.status, reason: r.reason, seen_via: r.seen_via, recorded_at: r.created_at.toISOString(),
    }),
  },
  disputes: {
    summary: 'Chargebacks on Adyen card payments, newest first: status notified | charged | reversed, the return that took the money, defence deadline',
    schema: disputeSchema,
    row: (d) => ({
      id: d.id, deposit_id: d.deposit_id, payment_reference: d.payment_reference, status: d.status, reason: d.reason, reason_code: d.reason_code,
      disputed_amount: d.disputed_amount, disputed_currency: d.disputed_currency, return_id: d.return_id, debit: d.debit, debit_currency: d.debit_currency,
      deadline_at: d.deadline_at?.toISOString() ?? null, updated_at: d.updated_at.toISOString(),
    }),
  },
};

// What a deposit service refuses, named without any face: each face (src/http/errors.ts) decides
// the status, code and text a kind answers, as cashouts (CashoutError) and refunds (RefundError) do.
import type { ConnectorError } from '../connectors/payin.ts';
import type { LimitKind } from '../domain/limits.ts';
import type { StaleRate } from '../lookups/exchange-rates.ts';

export type DepositFailure =
  | 'invoice_used'
  | 'user_limit'
  | 'idempotency_key_used'
  | 'not_found'
  | 'invalid_transition'
  | 'provider_unavailable'
  | 'provider_refused'
  | 'validation'
  | 'rate_stale';

export interface DepositErrorFacts {
  /** user_limit: which limit the customer exceeded. */
  limit?: LimitKind;
  /** validation: one `field: reason` per problem. */
  details?: string[];
  /** provider_*: who failed ("The Pix provider") and what the connector said. */
  provider?: { who: string; error: ConnectorError };
  /** rate_stale: the rate that is too old. */
  rate?: StaleRate;
}

export class DepositError extends Error {
  constructor(
    readonly kind: DepositFailure,
    message: string,
    readonly facts: DepositErrorFacts = {},
  ) {
    super(message);
    this.name = 'DepositError';
  }
}

/** The connector's failure to create a charge as the deposit's: refused, or not answering. */
export function providerFailure(error: ConnectorError, who: string): DepositError {
  return new DepositError(error.kind === 'refused' ? 'provider_refused' : 'provider_unavailable', `${who}: ${error.message}`, { provider: { who, error } });
}

export const depositNotFound = (): DepositError => new DepositError('not_found', 'Deposit not found');

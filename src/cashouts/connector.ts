// The payout connector now lives beside the pay-in one (src/connectors/); this keeps the
// cashout code's imports short.
export type { PayoutConnector, PayoutOrder, PayoutOutcome } from '../connectors/payout.ts';
export { payoutConnector } from '../connectors/registry.ts';

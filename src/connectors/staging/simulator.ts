// Staging's pay-in simulator: the collection details caja has always shown in staging
// (src/domain/payment-info.ts: a BR Code to the staging CNPJ, CLABEs at STP, boletos, vouchers),
// completed by the sandbox (POST /v3/sandbox/deposits/{id}/approve, the payment pages' buttons,
// the magic values of src/domain/deposit-sandbox.ts), never by a provider. Its refunds stay
// PENDING until the sandbox completes or rejects them, as before. A stand-in kind
// (src/connectors/kind.ts StandInKind): it collects every catalog method but cards.
import { catalogMethods } from '../../domain/catalog.ts';
import { buildPaymentInfo } from '../../domain/payment-info.ts';
import type { StandInKind } from '../kind.ts';
import { confirmedOutsideProvider, type PayinConnector, paymentInfoInput } from '../payin.ts';

export const stagingSimulator: PayinConnector = {
  ...confirmedOutsideProvider,
  name: 'staging',
  simulated: true,
  async createCharge(order) {
    const paymentInfo = await buildPaymentInfo(paymentInfoInput(order));
    return { paymentInfo, reference: null };
  },
  async health() {
    return { ok: true, simulated: true };
  },
};

export const stagingSimulatorKind: StandInKind = {
  name: stagingSimulator.name,
  label: 'staging simulator',
  collects: {
    serves: catalogMethods().filter((m) => m.kind !== 'card').map((m) => ({ country: m.country, method: m.code })),
    build: () => stagingSimulator,
  },
  completedBySandbox: true,
};

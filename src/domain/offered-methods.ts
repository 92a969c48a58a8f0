// Which methods a deposit offers its customer: the one rule the hosted checkout (what it lists),
// deposit creation (whether anything at all can be offered) and the sandbox's approve share.
// Pure: what is served in this environment comes in as a predicate from src/connectors/registry.ts.
import { findMethod, methodsForCountry, type PaymentMethod } from './catalog.ts';
import { methodAmountProblem } from './deposit-request.ts';
import type { Decimal } from './money.ts';

export interface MethodScope {
  country: string;
  /** The method the merchant named, if any: then it alone is offered. */
  paymentMethod: string | null;
  paymentTypes: readonly string[] | null;
  paymentType: string | null;
  /** In the country's currency, as the methods' bounds are; null: bounds not considered. */
  localAmount: Decimal | null;
}

/**
 * The merchant's payment_method alone when it named one; otherwise the country's methods of the
 * types payment_types / payment_type allow (ALL or none: every type) whose bounds hold the local
 * amount. Only methods `served` says some connector collects here.
 */
export function offeredMethods(scope: MethodScope, served: (code: string) => boolean): PaymentMethod[] {
  if (scope.paymentMethod) {
    const m = findMethod(scope.country, scope.paymentMethod);
    return m && served(m.code) ? [m] : [];
  }
  const types = scope.paymentTypes?.length ? scope.paymentTypes : scope.paymentType ? [scope.paymentType] : ['ALL'];
  const all = types.includes('ALL');
  return methodsForCountry(scope.country).filter(
    (m) => (all || types.includes(m.type)) && served(m.code) && (scope.localAmount === null || methodAmountProblem(m, scope.localAmount) === null),
  );
}

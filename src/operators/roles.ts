// Who may do what in the operator console: the console's part of the back office's one action
// table (src/backoffice/actions.ts), read by action for every page and every post (the routes pass
// through opsRoute with the action they need; the views offer a button only when the same table
// allows it). Pure: tested role by role in test/ops/roles.test.ts.
import { OPERATOR_ROLES, opsMay, type OperatorRole, type OpsAction } from '../backoffice/actions.ts';

export { OPERATOR_ROLES, OPS_ACTIONS, type OperatorRole, type OpsAction } from '../backoffice/actions.ts';

export function canOps(role: OperatorRole, action: OpsAction): boolean {
  return opsMay(role, action);
}

export function isOperatorRole(v: unknown): v is OperatorRole {
  return typeof v === 'string' && (OPERATOR_ROLES as readonly string[]).includes(v);
}

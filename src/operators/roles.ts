// Who may do what in the operator console: one table, read by action, decides every page and
// every post (the routes pass through opsRoute with the action they need; the views offer a
// button only when the same table allows it). Pure: tested role by role in test/ops/roles.test.ts.
export const OPERATOR_ROLES = ['admin', 'finance', 'risk', 'support', 'read_only'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export type OpsAction =
  | 'view' // every list and detail page: merchants, rates, connector health, approvals, the audit log
  | 'merchants.create'
  | 'merchants.settings' // settings, fees, limits, the cashout approval threshold
  | 'merchants.rotate' // credential rotation (the new secrets are shown once)
  | 'rates.edit' // markups per currency, manual rates
  | 'money.request' // ask for a balance adjustment or a held cashout's release (first pair of eyes)
  | 'money.approve' // approve or reject what another operator asked (second pair of eyes)
  | 'operators' // make operators, named admin tokens
  | 'reconciliation' // import statements, resolve reconciliation exceptions
  | 'connectors'; // configure the Pix, STP and own-accounts connectors (their secrets are write-only)

const ALL: readonly OperatorRole[] = OPERATOR_ROLES;

/**
 * The table. Support finds merchants and reads everything; risk decides on held money but does
 * not change merchants; finance moves money and sets rates; only admins make operators and tokens
 * and rotate merchants' credentials.
 */
const GRANTS: Record<OpsAction, readonly OperatorRole[]> = {
  view: ALL,
  'merchants.create': ['admin'],
  'merchants.settings': ['admin', 'finance'],
  'merchants.rotate': ['admin'],
  'rates.edit': ['admin', 'finance'],
  'money.request': ['admin', 'finance', 'risk'],
  'money.approve': ['admin', 'finance', 'risk'],
  operators: ['admin'],
  reconciliation: ['admin', 'finance'],
  connectors: ['admin'],
};

export const OPS_ACTIONS = Object.keys(GRANTS) as OpsAction[];

export function canOps(role: OperatorRole, action: OpsAction): boolean {
  return GRANTS[action].includes(role);
}

export function isOperatorRole(v: unknown): v is OperatorRole {
  return typeof v === 'string' && (OPERATOR_ROLES as readonly string[]).includes(v);
}

// The back office's one action table: every action a signed-in person or an admin token can take,
// and who may take it — the operator roles of the console (/ops), the member roles of the
// merchant panel (/panel) and the scope an admin token (/admin) needs. Each route declares its
// action (opsRoute('merchants.rotate', …), panelRoute('team', …), an admin route by its area);
// src/operators/roles.ts, src/panel/services/roles.ts and src/operators/tokens.ts only read this
// table. Pure: no I/O; checked face by face in test/backoffice/actions.test.ts.

export const OPERATOR_ROLES = ['admin', 'finance', 'risk', 'support', 'read_only'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export const PANEL_ROLES = ['owner', 'admin', 'developer', 'finance', 'support'] as const;
export type PanelRole = (typeof PANEL_ROLES)[number];

/** The credential sets of the panel's Settings → API access (merchants.ts CREDENTIAL_SETS). */
export const PANEL_CREDENTIAL_SETS = ['deposits', 'web_status', 'cashouts', 'read_only', 'panel'] as const;
export type PanelCredentialSet = (typeof PANEL_CREDENTIAL_SETS)[number];

/** Scopes: 'read' (every GET except tokens), and one scope per area that changes something. */
export const TOKEN_SCOPES = ['read', 'merchants', 'money', 'rates', 'connectors', 'notifications', 'reconciliation', 'tokens'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

const ALL_OPS: readonly OperatorRole[] = OPERATOR_ROLES;
const ALL_PANEL: readonly PanelRole[] = PANEL_ROLES;
const OWNER_ADMIN: readonly PanelRole[] = ['owner', 'admin'];
const TECH: readonly PanelRole[] = ['owner', 'admin', 'developer'];

/**
 * The console. Support finds merchants and reads everything; risk decides on held money but does
 * not change merchants; finance moves money and sets rates; only admins make operators and tokens
 * and rotate merchants' credentials.
 */
const OPS = {
  view: ALL_OPS, // every list and detail page: merchants, rates, connector health, approvals, the audit log
  'merchants.create': ['admin'],
  'merchants.settings': ['admin', 'finance'], // settings, fees, limits, the cashout approval threshold
  'merchants.rotate': ['admin'], // credential rotation (the new secrets are shown once)
  'rates.edit': ['admin', 'finance'], // markups per currency, manual rates
  'money.request': ['admin', 'finance', 'risk'], // ask for a balance adjustment or a held cashout's release (first pair of eyes)
  'money.approve': ['admin', 'finance', 'risk'], // approve or reject what another operator asked (second pair of eyes)
  operators: ['admin'], // make operators, named admin tokens
  reconciliation: ['admin', 'finance'], // import statements, resolve reconciliation exceptions
  connectors: ['admin'], // configure the connectors (their secrets are write-only)
} as const satisfies Record<string, readonly OperatorRole[]>;

/**
 * The panel. Credential sets that move money or sign for it (deposits: deposits, refunds and
 * their notifications; cashouts: payouts) and web_status (the live integration's status
 * look-ups) are rotated by the owner and admins only; a developer sees every login and rotates
 * the read-only key. The owner's own panel password is the owner's alone.
 */
const PANEL = {
  view: ALL_PANEL, // home, lists, details, payment methods, balance, exports, own account
  money: ['owner', 'admin', 'finance'], // cashouts (create, batch, hold, release, cancel) and refunds
  sandbox: ['owner', 'admin', 'developer', 'finance'], // staging buttons
  'api.view': TECH, // Settings → API access: each set's login, the URLs, the framing origins
  'settings.edit': TECH, // the notification, return and logo URLs and the framing origins
  notifications: TECH, // list notifications, resend one, send a test notification
  // Rotating a set is the only way its secrets are ever shown again ("reveal" is rotation).
  'rotate:deposits': OWNER_ADMIN,
  'rotate:web_status': OWNER_ADMIN,
  'rotate:cashouts': OWNER_ADMIN,
  'rotate:read_only': TECH,
  'rotate:panel': ['owner'],
  team: OWNER_ADMIN, // invite, reset and remove members
  audit: OWNER_ADMIN, // read the audit log
} as const satisfies Record<`${string}`, readonly PanelRole[]>;

/**
 * The admin API: the area of each route that changes something (by route pattern, longest prefix
 * first) and the scope its action needs. Reading needs 'read' (tokens: 'tokens'); a changing route
 * of no listed area is the bootstrap token's alone.
 */
const ADMIN_WRITE_AREAS: readonly [string, TokenScope][] = [
  ['/admin/tokens', 'tokens'],
  ['/admin/merchants/:id/balance_adjustments', 'money'],
  ['/admin/deposits', 'money'],
  ['/admin/merchants', 'merchants'],
  ['/admin/limits', 'merchants'],
  ['/admin/exchange_rates', 'rates'],
  ['/admin/connectors', 'connectors'],
  ['/admin/notifications', 'notifications'],
  ['/admin/reconciliation', 'reconciliation'],
];

export type OpsAction = keyof typeof OPS;
export type PanelAction = keyof typeof PANEL;

/** The table, face by face: what the console's, the panel's and the admin API's gates read. */
export const ACTION_TABLE = {
  ops: OPS as Record<OpsAction, readonly OperatorRole[]>,
  panel: PANEL as Record<PanelAction, readonly PanelRole[]>,
  admin: ADMIN_WRITE_AREAS,
} as const;

export const OPS_ACTIONS = Object.keys(OPS) as OpsAction[];
export const PANEL_ACTIONS = Object.keys(PANEL) as PanelAction[];

export const opsMay = (role: OperatorRole, action: OpsAction): boolean => ACTION_TABLE.ops[action].includes(role);
export const panelMay = (role: PanelRole, action: PanelAction): boolean => ACTION_TABLE.panel[action].includes(role);

/**
 * The scope an admin call needs, from its method and route pattern. Reading tokens needs 'tokens';
 * any other GET needs 'read'. A changing route of no listed area needs the bootstrap token (null).
 */
export function adminScopeFor(method: string, route: string): TokenScope | null {
  if (route.startsWith('/admin/tokens')) return 'tokens';
  if (method === 'GET' || method === 'HEAD') return 'read';
  return ACTION_TABLE.admin.find(([prefix]) => route.startsWith(prefix))?.[1] ?? null;
}

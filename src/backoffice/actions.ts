// The back office's one action table: every action a signed-in person or an admin token can take,
// and who may take it — the operator roles of the console (/ops), the member roles of the
// merchant panel (/panel) and the scope an admin token (/admin) needs. Each route declares its
// action (opsRoute('merchants.rotate', …), panelRoute('team', …), an admin route by its method and pattern);
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
 * The admin API: the scope each route's action needs, declared per route (method and pattern).
 * Reading needs 'read' (tokens: 'tokens'). The routes every connector kind gets
 * (src/api/admin/connector-routes.ts) are declared once under `:kind`. A route not in this table
 * is the bootstrap token's alone (test/backoffice/actions.test.ts fails on one).
 */
const ADMIN = {
  'GET /admin/merchants/:id': 'read',
  'POST /admin/merchants': 'merchants',
  'PATCH /admin/merchants/:id': 'merchants',
  'POST /admin/merchants/:id/rotate': 'merchants',
  'GET /admin/merchants/:id/fees': 'read',
  'PUT /admin/merchants/:id/fees': 'merchants',
  'GET /admin/limits': 'read',
  'PUT /admin/limits': 'merchants',
  'GET /admin/merchants/:id/balance': 'read',
  'POST /admin/merchants/:id/balance_adjustments': 'money',
  'GET /admin/deposits/:id': 'read',
  'POST /admin/deposits/:id/complete': 'money',
  'GET /admin/returns': 'read',
  'GET /admin/ledger/check': 'read',
  'GET /admin/exchange_rates': 'read',
  'PUT /admin/exchange_rates': 'rates',
  'GET /admin/exchange_rates/sources': 'read',
  'PUT /admin/exchange_rates/markups': 'rates',
  'GET /admin/connectors/:kind': 'read',
  'PUT /admin/connectors/:kind': 'connectors',
  'GET /admin/connectors/:kind/payments': 'read',
  'GET /admin/connectors/:kind/disputes': 'read',
  'GET /admin/merchants/:id/notifications': 'read',
  'GET /admin/notifications/:id': 'read',
  'POST /admin/notifications/:id/resend': 'notifications',
  'GET /admin/reconciliation/statements': 'read',
  'POST /admin/reconciliation/statements': 'reconciliation',
  'POST /admin/reconciliation/provider-statements': 'reconciliation',
  'GET /admin/reconciliation/matches': 'read',
  'GET /admin/reconciliation/exceptions': 'read',
  'POST /admin/reconciliation/exceptions/:id/resolve': 'reconciliation',
  'GET /admin/tokens': 'tokens',
  'POST /admin/tokens': 'tokens',
  'POST /admin/tokens/:id/rotate': 'tokens',
  'DELETE /admin/tokens/:id': 'tokens',
} as const satisfies Record<`${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /admin/${string}`, TokenScope>;

export type OpsAction = keyof typeof OPS;
export type PanelAction = keyof typeof PANEL;
export type AdminAction = keyof typeof ADMIN;

/** The table, face by face: what the console's, the panel's and the admin API's gates read. */
export const ACTION_TABLE = {
  ops: OPS as Record<OpsAction, readonly OperatorRole[]>,
  panel: PANEL as Record<PanelAction, readonly PanelRole[]>,
  admin: ADMIN as Record<AdminAction, TokenScope>,
} as const;

export const OPS_ACTIONS = Object.keys(OPS) as OpsAction[];
export const PANEL_ACTIONS = Object.keys(PANEL) as PanelAction[];
export const ADMIN_ACTIONS = Object.keys(ADMIN) as AdminAction[];

export const opsMay = (role: OperatorRole, action: OpsAction): boolean => ACTION_TABLE.ops[action].includes(role);
export const panelMay = (role: PanelRole, action: PanelAction): boolean => ACTION_TABLE.panel[action].includes(role);

/** The action (`METHOD /admin/pattern`) of an admin call, as the table declares it; null: no declared action. */
export function adminActionOf(method: string, route: string): AdminAction | null {
  const m = method === 'HEAD' ? 'GET' : method;
  const key = `${m} ${route}`;
  if (key in ADMIN) return key as AdminAction;
  // Every connector kind's routes: /admin/connectors/{name}[/payments|/disputes].
  const kind = `${m} ${route.replace(/^\/admin\/connectors\/[a-z0-9_]{1,32}(?=\/|$)/, '/admin/connectors/:kind')}`;
  return kind in ADMIN ? (kind as AdminAction) : null;
}

/** The scope an admin call needs, from its route's declared action; null (no declared action): the bootstrap token's alone. */
export function adminScopeFor(method: string, route: string): TokenScope | null {
  const action = adminActionOf(method, route);
  return action === null ? null : ACTION_TABLE.admin[action];
}

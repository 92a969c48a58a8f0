// Who may do what in the panel: one table, read by action, decides every page and every post
// (the routes pass through panelRoute with the action they need; the views offer a button only
// when the same table allows it). Pure: no I/O, tested role by role in test/panel/units.test.ts.
export const ROLES = ['owner', 'admin', 'developer', 'finance', 'support'] as const;
export type Role = (typeof ROLES)[number];
/** Roles the owner (or an admin) can give; there is one owner, the merchant's panel login. */
export const INVITABLE_ROLES: Role[] = ['admin', 'developer', 'finance', 'support'];

/** The credential sets of Settings → API access (merchants.ts CREDENTIAL_SETS). */
export const PANEL_CREDENTIAL_SETS = ['deposits', 'web_status', 'cashouts', 'read_only', 'panel'] as const;
export type PanelCredentialSet = (typeof PANEL_CREDENTIAL_SETS)[number];

export type Action =
  | 'view' // home, lists, details, payment methods, balance, exports, own account
  | 'money' // cashouts (create, batch, hold, release, cancel) and refunds
  | 'sandbox' // staging buttons: approve / cancel / expire deposits, deliver / complete / reject cashouts, complete / reject refunds
  | 'api.view' // Settings → API access: each set's login, the URLs, the framing origins
  | 'settings.edit' // change the notification, return and logo URLs and the framing origins
  | 'notifications' // list notifications, resend one, send a test notification
  // Rotating a set is the only way its secrets are ever shown again ("reveal" is rotation).
  | `rotate:${PanelCredentialSet}`
  | 'team' // invite, reset and remove members
  | 'audit'; // read the audit log

const ALL: readonly Role[] = ROLES;
const OWNER_ADMIN: readonly Role[] = ['owner', 'admin'];
const TECH: readonly Role[] = ['owner', 'admin', 'developer'];

/**
 * The table. Credential sets that move money or sign for it (deposits: deposits, refunds and
 * their notifications; cashouts: payouts) and web_status (the live integration's status
 * look-ups) are rotated by the owner and admins only; a developer sees every login and rotates
 * the read-only key. The owner's own panel password is the owner's alone.
 */
const GRANTS: Record<Action, readonly Role[]> = {
  view: ALL,
  money: ['owner', 'admin', 'finance'],
  sandbox: ['owner', 'admin', 'developer', 'finance'],
  'api.view': TECH,
  'settings.edit': TECH,
  notifications: TECH,
  'rotate:deposits': OWNER_ADMIN,
  'rotate:web_status': OWNER_ADMIN,
  'rotate:cashouts': OWNER_ADMIN,
  'rotate:read_only': TECH,
  'rotate:panel': ['owner'],
  team: OWNER_ADMIN,
  audit: OWNER_ADMIN,
};

export const ACTIONS = Object.keys(GRANTS) as Action[];

export function can(role: Role, action: Action): boolean {
  return GRANTS[action].includes(role);
}

export function rotateAction(set: PanelCredentialSet): Action {
  return `rotate:${set}`;
}

export function isCredentialSet(v: unknown): v is PanelCredentialSet {
  return typeof v === 'string' && (PANEL_CREDENTIAL_SETS as readonly string[]).includes(v);
}

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

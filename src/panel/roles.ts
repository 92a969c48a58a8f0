// Who may do what in the panel. Every page and every action names the permission it needs; the
// check is here once, so a role's reach is read in one table.
export const ROLES = ['owner', 'admin', 'developer', 'finance', 'support'] as const;
export type Role = (typeof ROLES)[number];
/** Roles the owner (or an admin) can give; there is one owner, the merchant's panel login. */
export const INVITABLE_ROLES: Role[] = ['admin', 'developer', 'finance', 'support'];

export type Permission =
  | 'view' // home, lists, details, payment methods, exports
  | 'money' // cashouts (create, batch, hold, release, cancel) and refunds
  | 'sandbox' // staging buttons: approve / cancel / expire deposits, deliver / complete / reject cashouts
  | 'api' // Settings → API Access: credentials, URLs, test and resent notifications
  | 'team' // invite and remove users
  | 'audit'; // read the audit log

const GRANTS: Record<Role, readonly Permission[]> = {
  owner: ['view', 'money', 'sandbox', 'api', 'team', 'audit'],
  admin: ['view', 'money', 'sandbox', 'api', 'team', 'audit'],
  developer: ['view', 'sandbox', 'api'],
  finance: ['view', 'money', 'sandbox'],
  support: ['view'],
};

export function can(role: Role, p: Permission): boolean {
  return GRANTS[role].includes(p);
}

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

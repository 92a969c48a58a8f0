// Who may do what in the panel: the panel's part of the back office's one action table
// (src/backoffice/actions.ts), read by action, decides every page and every post
// (the routes pass through panelRoute with the action they need; the views offer a button only
// when the same table allows it). Pure: no I/O, tested role by role in test/panel/units.test.ts.
import { PANEL_ACTIONS, PANEL_CREDENTIAL_SETS, PANEL_ROLES, panelMay, type PanelAction, type PanelCredentialSet, type PanelRole } from '../../backoffice/actions.ts';

export { PANEL_CREDENTIAL_SETS, type PanelCredentialSet } from '../../backoffice/actions.ts';
export const ROLES = PANEL_ROLES;
export type Role = PanelRole;
/** Roles the owner (or an admin) can give; there is one owner, the merchant's panel login. */
export const INVITABLE_ROLES: Role[] = ['admin', 'developer', 'finance', 'support'];

export type Action = PanelAction;

export const ACTIONS: Action[] = PANEL_ACTIONS;

export function can(role: Role, action: Action): boolean {
  return panelMay(role, action);
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

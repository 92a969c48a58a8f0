// `caja operator …` and `caja token …`, straight against the database: the first operator of a
// fresh installation (its password and TOTP secret printed once), operators' lifecycle (disable,
// enable, password and TOTP resets: src/operators/lifecycle.ts), and named admin API tokens for
// automation (shown once, when made or rotated). Registered in src/cli/main.ts by one line.
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/db.ts';
import { secretBox } from '../merchants/secrets.ts';
import { createOperator, listOperators, OperatorError } from '../operators/accounts.ts';
import type { OpsActor } from '../operators/audit.ts';
import { operatorByEmail, resetOperatorPassword, resetOperatorTotp, setOperatorDisabled } from '../operators/lifecycle.ts';
import { isOperatorRole, OPERATOR_ROLES } from '../operators/roles.ts';
import { createAdminToken, isTokenScope, listAdminTokens, revokeAdminToken, rotateAdminToken, TOKEN_SCOPES, TokenError } from '../operators/tokens.ts';

export const OPERATOR_COMMANDS = ['operator', 'token'];

export const OPERATOR_USAGE = `  caja operator create --email E --role ${OPERATOR_ROLES.join('|')} [--json]
                                              an operator of the console (/ops); prints its password and TOTP secret once
  caja operator list
  caja operator disable --email E             their sessions end at once; they cannot sign in (not the last active admin)
  caja operator enable --email E
  caja operator reset-password --email E [--json]
                                              a new generated password, printed once; their sessions end
  caja operator reset-totp --email E          they enrol a new authenticator secret at the next sign-in; their sessions end
  caja token create --name NAME --scopes ${TOKEN_SCOPES.join(',')} [--json]
                                              a named admin API token; prints it once
  caja token rotate --id ID [--json]          a new secret for the token; the old one stops working
  caja token revoke --id ID
  caja token list`;

class OperatorUsageError extends Error {}

// The CLI acts as the person at the machine's shell: audit rows name it as the bootstrap token.
export const CLI_ACTOR: OpsActor = { kind: 'token', id: 0, name: 'cli', ip: null };

export async function runOperatorCommand(db: Db, config: Config, argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: { email: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, id: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const box = secretBox(config.masterKey);
  const now = new Date();
  const out = (obj: object) => console.log(values.json ? JSON.stringify(obj, null, 2) : Object.entries(obj).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(',') : v}`).join('\n'));
  try {
    if (command === 'operator' && sub === 'create') {
      if (!values.email) throw new OperatorUsageError('--email is required');
      if (!isOperatorRole(values.role)) throw new OperatorUsageError(`--role must be one of ${OPERATOR_ROLES.join(', ')}`);
      const op = await createOperator(db, box, values.email, values.role, null, now);
      out({ id: op.id, email: op.email, role: op.role, password: op.password, totp_secret: op.totpSecret, otpauth_uri: op.otpauthUri });
      if (!values.json) console.log('\nShown once: keep the password, and add the TOTP secret (or the otpauth URI) to an authenticator app. Sign in at /ops.');
      return;
    }
    if (command === 'operator' && sub === 'list') {
      for (const o of await listOperators(db)) console.log(`${o.id}\t${o.email}\t${o.role}${o.disabled_at ? '\tdisabled' : ''}`);
      return;
    }
    if (command === 'operator' && (sub === 'disable' || sub === 'enable' || sub === 'reset-password' || sub === 'reset-totp')) {
      if (!values.email) throw new OperatorUsageError('--email is required');
      const target = await operatorByEmail(db, values.email);
      if (!target) throw new OperatorError('not_found', `no operator has the e-mail ${values.email}`);
      if (sub === 'reset-password') {
        const op = await resetOperatorPassword(db, target.id, CLI_ACTOR, now);
        out({ id: op.id, email: op.email, password: op.password });
        if (!values.json) console.log('\nShown once: hand the password to the operator over a safe channel. Their sessions have ended.');
      } else if (sub === 'reset-totp') {
        const op = await resetOperatorTotp(db, target.id, CLI_ACTOR, now);
        out({ id: op.id, email: op.email, totp: 'reset: a new secret is enrolled at the next sign-in' });
      } else {
        const op = await setOperatorDisabled(db, target.id, sub === 'disable', CLI_ACTOR, now);
        out({ id: op.id, email: op.email, disabled_at: op.disabled_at?.toISOString() ?? 'no' });
      }
      return;
    }
    if (command === 'token' && sub === 'create') {
      const scopes = (values.scopes ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      if (!values.name) throw new OperatorUsageError('--name is required');
      if (scopes.length === 0 || !scopes.every(isTokenScope)) throw new OperatorUsageError(`--scopes must list some of ${TOKEN_SCOPES.join(',')}`);
      if (!/^[a-z0-9][a-z0-9_.-]{0,62}$/.test(values.name)) throw new OperatorUsageError('--name: lower-case letters, digits, . _ - (up to 63)');
      const t = await createAdminToken(db, box, values.name, scopes, CLI_ACTOR, now);
      out({ id: t.id, name: t.name, scopes: t.scopes, token: t.token });
      return;
    }
    const id = Number(values.id);
    if (command === 'token' && (sub === 'rotate' || sub === 'revoke')) {
      if (!Number.isInteger(id) || id < 1) throw new OperatorUsageError('--id must be a token id');
      if (sub === 'rotate') {
        const t = await rotateAdminToken(db, box, id, CLI_ACTOR, now);
        out({ id: t.id, name: t.name, scopes: t.scopes, token: t.token });
      } else {
        const t = await revokeAdminToken(db, id, CLI_ACTOR, now);
        out({ id: t.id, name: t.name, revoked_at: t.revoked_at!.toISOString() });
      }
      return;
    }
    if (command === 'token' && sub === 'list') {
      for (const t of await listAdminTokens(db)) console.log(`${t.id}\t${t.name}\t${t.scopes.join(',')}${t.revoked_at ? '\trevoked' : ''}`);
      return;
    }
    throw new OperatorUsageError(`unknown ${command} command '${sub ?? ''}'`);
  } catch (err) {
    if (!(err instanceof OperatorError || err instanceof TokenError || err instanceof OperatorUsageError)) throw err;
    console.error(`caja: ${err.message}${err instanceof OperatorUsageError ? `\n\n${OPERATOR_USAGE}` : ''}`);
    process.exitCode = err instanceof OperatorUsageError ? 64 : 1;
  }
}

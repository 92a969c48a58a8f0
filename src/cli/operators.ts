// `caja operator …` and `caja token …`, straight against the database: the first operator of a
// fresh installation (a one-time enrolment link printed: the operator chooses the password and
// enrols the authenticator through it; the CLI never sees either), operators' lifecycle (disable,
// enable, reset to a new enrolment link: src/operators/lifecycle.ts), and named admin API tokens for
// automation (shown once, when made or rotated). Registered in src/cli/main.ts by one line.
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/db.ts';
import { secretBox } from '../domain/secrets.ts';
import { createOperator, listOperators, OperatorError } from '../operators/accounts.ts';
import type { OpsActor } from '../operators/audit.ts';
import { operatorByEmail, resetOperator, setOperatorDisabled } from '../operators/lifecycle.ts';
import { isOperatorRole, OPERATOR_ROLES } from '../operators/roles.ts';
import { createAdminToken, isTokenScope, listAdminTokens, revokeAdminToken, rotateAdminToken, TOKEN_SCOPES, TokenError } from '../operators/tokens.ts';

export const OPERATOR_COMMANDS = ['operator', 'token'];

export const OPERATOR_USAGE = `  caja operator create --email E --role ${OPERATOR_ROLES.join('|')} [--json]
                                              an operator of the console (/ops); prints a one-time enrolment link
                                              (valid 72 h) with which they choose their password and enrol their authenticator
  caja operator list
  caja operator disable --email E             their sessions end at once; they cannot sign in (not the last active admin)
  caja operator enable --email E
  caja operator reset --email E [--json]      their password and authenticator stop, their sessions end; prints a new
                                              enrolment link with which they set both again
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
      out({ id: op.id, email: op.email, role: op.role, enrolment_link: `${config.publicBaseUrl}${op.enrolment.path}`, expires_at: op.enrolment.expiresAt.toISOString() });
      if (!values.json) console.log('\nShown once: give the link to the operator (or open it yourself if you are that operator). It works once: they choose their password and add the authenticator secret it shows, then sign in at /ops.');
      return;
    }
    if (command === 'operator' && sub === 'list') {
      for (const o of await listOperators(db)) console.log(`${o.id}\t${o.email}\t${o.role}${o.disabled_at ? '\tdisabled' : ''}${o.enrolment_expires_at ? '\tenrolling' : ''}`);
      return;
    }
    if (command === 'operator' && (sub === 'disable' || sub === 'enable' || sub === 'reset')) {
      if (!values.email) throw new OperatorUsageError('--email is required');
      const target = await operatorByEmail(db, values.email);
      if (!target) throw new OperatorError('not_found', `no operator has the e-mail ${values.email}`);
      if (sub === 'reset') {
        const op = await resetOperator(db, box, target.id, CLI_ACTOR, now);
        out({ id: op.id, email: op.email, enrolment_link: `${config.publicBaseUrl}${op.enrolment.path}`, expires_at: op.enrolment.expiresAt.toISOString() });
        if (!values.json) console.log('\nShown once: give the link to the operator over a safe channel. Their password and authenticator no longer work; their sessions have ended.');
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

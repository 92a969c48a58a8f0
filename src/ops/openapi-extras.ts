// What the route schemas alone do not say, added to the OpenAPI document once it is built: the
// 3.1 form (nullable as a type union), the authentication headers of every operation, the error
// codes each one answers, the form-encoded streamline operations (their routes parse forms by
// hand, so they carry no schema), and a recorded example per request and response
// (openapi-examples.json, written by scripts/openapi-examples.ts from a run against a real caja).
import { readFileSync } from 'node:fs';

type Json = Record<string, any>;

const AUTH_400 = '101 MISSING_REQUIRED_HEADER, 102 INVALID_SIGNATURE, 103 INVALID_DATE_RANGE, 105 EMPTY_HEADER_VALUE';

/** Error codes per operation beyond authentication, as `<method> <path>` → codes by HTTP status. */
const ERRORS: Record<string, Record<string, string>> = {
  'post /v3/deposits': { 400: '104 IDEMPOTENCY_KEY_ALREADY_USED, 201 BEAN_VALIDATION_ERROR, 300 INVALID_DOCUMENT, 304 USER_LIMIT_EXCEEDED, 502 INVALID_REQUEST_BODY' },
  'get /v3/deposits': { 400: '201 BEAN_VALIDATION_ERROR (query)' },
  'get /v3/deposits/{id}': { 404: '208 RESOURCE_NOT_FOUND' },
  'post /v3/refunds': { 400: '104, 201, 502, 514 INSUFFICIENT_FUNDS, 802 INVALID_AMOUNT_TO_REFUND, 804 MISSING_BANK_ACCOUNT', 404: '208 RESOURCE_NOT_FOUND' },
  'get /v3/refunds/{id}': { 404: '208 RESOURCE_NOT_FOUND' },
  'post /v5/account/validate': { 400: '201, 300 INVALID_DOCUMENT, 302 INVALID_BANK_ACCOUNT (the failing check named), 502', 403: '106 FEATURE_NOT_ENABLED' },
  'post /v5/account/pix_key/validate': { 400: '201, 502', 403: '106 FEATURE_NOT_ENABLED' },
  'post /v3/cashout': { 400: '300 invalid params (every failing field; in production also a country no payout provider pays), 511 external_id already used, 514 insufficient funds', 401: '401 invalid login, pass or Payload-Signature' },
  'post /v3/cashout/status': { 400: '300 invalid params', 401: '401 invalid login, pass or Payload-Signature', 404: '509 cashout not found' },
  'put /v3/cashout/status': { 400: '300, 510 invalid status transition', 401: '401', 404: '509' },
  'delete /v3/cashout/cancel': { 400: '300, 510 invalid status transition', 401: '401', 404: '509' },
  // "Not in a state that allows this" is one answer for every resource: 409 with 510.
  ...Object.fromEntries(
    [['deposits', ['approve', 'cancel', 'expire']], ['refunds', ['complete', 'reject']], ['cashouts', ['deliver', 'complete', 'reject']]].flatMap(([kind, actions]) =>
      (actions as string[]).map((action) => [`post /v3/sandbox/${kind}/{id}/${action}`, { 404: '208 RESOURCE_NOT_FOUND', 409: `510 INVALID_STATUS_TRANSITION (the ${(kind as string).slice(0, -1)}'s status does not allow it)` }]),
    ),
  ),
};

const header = (name: string, description: string, required: boolean, schema: Json = { type: 'string' }) => ({ in: 'header', name, required, description, schema });

const X_DATE = header('X-Date', "Request time, `yyyy-MM-dd'T'HH:mm:ssZ` (offsets and milliseconds also read); within CAJA_X_DATE_TOLERANCE_SECONDS (300) of server time, else 103", true, { type: 'string', example: '2026-11-23T13:00:00Z' });
const X_LOGIN = header('X-Login', 'deposits.login (v5: cashouts.login)', true);
const IDEMPOTENCY = header('X-Idempotency-Key', 'Optional, at most 255 characters (also read as X-Idempontency-Key): the same key and body replay the first answer with `Idempotent-Replayed: true`; another body is 104', false);

/** `nullable: true` (3.0) becomes a type union (3.1), recursively. */
function to31(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(to31);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) if (k !== 'nullable') out[k] = to31(v);
  if ((node as Json).nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (out.anyOf || out.oneOf || out.enum) return { anyOf: [out, { type: 'null' }] };
    else out.type = ['object', 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  return out;
}

const formField = (description: string, maxLength?: number) => ({ type: 'string', description, ...(maxLength ? { maxLength } : {}) });

/** The form-encoded API (docs/streamline.md): credentials and controls travel in the body. */
function streamlinePaths(): Json {
  const creds = { x_login: formField('deposits.login (status queries: web_status.login)', 32), x_trans_key: formField('deposits.trans_key (status queries: web_status.trans_key)', 32) };
  const op = (summary: string, description: string, fields: Json, required: string[], answer: string, json: Json = { type: 'object', additionalProperties: true }) => ({
    post: {
      tags: ['streamline'],
      summary,
      description,
      requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { ...creds, ...fields }, required: ['x_login', 'x_trans_key', ...required] } } } },
      responses: {
        200: {
          description: `${answer} Errors are answered with HTTP 200 in this API's own format (status/desc/error_code: 301 empty credentials, 401 invalid credentials, 302 invalid control).`,
          content: { 'application/json': { schema: json }, 'text/xml': { schema: { type: 'string' } }, 'text/plain': { schema: { type: 'string' } } },
        },
      },
    },
  });
  const type = { type: formField('Answer format: JSON, XML or STRING', 20) };
  return {
    '/api_curl/streamline/NewInvoice': op(
      'Create a deposit (form-encoded)',
      '`control` = upper-case hex HMAC-SHA256 (deposits.secret_key) of x_invoice `V` x_amount `I` x_iduser `2` x_bank `1` x_cpf `H` x_bdate `G` x_email `Y` x_zip `A` x_address `P` x_city `S` x_state `P`.',
      {
        x_invoice: formField('Your id, unique', 125), x_amount: formField('Decimal, 2 decimals'), x_currency: formField('ISO 4217, default USD', 3), x_country: formField('ISO 3166 alpha-2', 2),
        x_bank: formField('Payment method code', 3), x_iduser: formField('Customer id, up to 11 digits'), x_cpf: formField('Customer document', 30), x_name: formField('Full name', 100),
        x_email: formField('E-mail', 100), x_mobile: formField('Phone; mandatory for CO and African countries', 20), x_bdate: formField('YYYYMMDD'), x_address: formField('Mandatory for BR and CO', 255),
        x_zip: formField('Mandatory for BR', 10), x_city: formField('City', 100), x_state: formField('Mandatory for BR', 20), x_return: formField('Return URL', 200), x_confirmation: formField('Confirmation (notification) URL', 200),
        x_description: formField('Description', 200), x_version: formField('1.0 (default) or 1.1 (adds local_amount, usd_amount, local_currency, x_document, amount_to_deposit)'), iframe_view: formField('Return an iframe view'),
        control: formField('Signature, see above'), ...type,
      },
      ['x_invoice', 'x_amount', 'x_country', 'x_bank', 'x_iduser', 'x_cpf', 'x_name', 'x_email', 'x_return', 'control'],
      'Success: status 0 and link; failure: status 1, desc (and error_code with x_version 1.1). XML unless type says otherwise.',
    ),
    '/apd/webpaystatus': op(
      'Deposit status (form-encoded)',
      'Also reads x_login_webpaystatus / x_trans_key_webpaystatus. `Sign` = upper-case hex HMAC-SHA256 (deposits.secret_key) of deposits.login + result + x_amount + x_invoice. result 6 not found, 7 pending, 8 cancelled, 9 completed.',
      { x_invoice: formField('Your id of the deposit', 125), ...type },
      ['x_invoice'],
      'result, x_iduser, x_invoice, x_amount, PT, Sign, x_document, x_bank, x_payment_type, x_bank_name, x_currency; a pipe-separated string unless type says otherwise.',
    ),
    '/api_curl/apd/refund': op(
      'Refund a completed deposit (form-encoded)',
      '`x_control` = upper-case hex HMAC-SHA256 (deposits.secret_key) of `A` + x_invoice + x_document + x_amount + x_bank_beneficiary + x_bank + x_bank_account + x_account_type + x_bank_branch. The answer\'s `control` signs result + x_amount + x_currency + x_invoice + x_document + x_refund.',
      {
        x_invoice: formField('Your id of the deposit', 125), x_document: formField("caja's deposit id", 11), x_amount: formField('Default: the whole deposit'), x_currency: formField('Default: local currency', 3),
        x_bank_beneficiary: formField('Beneficiary', 100), x_bank: formField('Bank name', 45), x_bank_code: formField('Bank code', 10), x_bank_account: formField('Account', 45),
        x_account_type: formField('C, S, V, O or P', 1), x_bank_branch: formField('Branch', 15), x_comments: formField('Comments', 200), x_control: formField('Signature, see above'), ...type,
      },
      ['x_control'],
      'status OK or ERROR, desc, control, result (0 processing, 1 completed, 2 cancelled, 3 rejected), x_invoice, x_document, x_amount, x_currency, x_amount_refunded, x_refund. JSON unless type says otherwise.',
    ),
    '/api_curl/query/refundstatus': op('Refund status (form-encoded)', 'web_status credentials.', { x_refund: formField("caja's refund id", 20), ...type }, ['x_refund'], 'result, x_invoice, x_document, x_refund, desc, x_amount_refunded, x_currency.'),
    '/api_curl/apd/get_banks_by_country': op('Payment methods of a country (form-encoded)', '', { country_code: formField('ISO 3166 alpha-2', 2), type: formField('json, xml or pipe; default XML', 20) }, ['country_code'], 'An array of {code, name, logo, payment_type}.', {
      // The JSON answer is an array, not an object (an error is still the object of the other operations).
      anyOf: [
        { type: 'array', items: { type: 'object', properties: { code: { type: 'string' }, name: { type: 'string' }, logo: { type: 'string' }, payment_type: { type: 'string' } }, required: ['code', 'name', 'logo', 'payment_type'] } },
        { type: 'object', additionalProperties: true },
      ],
    }),
    '/apd/webcurrencyexchange': op('Convert USD to a country\'s currency (form-encoded)', 'web_status or deposits credentials.', { x_country: formField('ISO 3166 alpha-2', 2), x_amount: formField('USD amount, default 1'), ...type }, [], 'The converted amount.'),
  };
}

let examples: Json | undefined;
function loadExamples(): Json {
  examples ??= JSON.parse(readFileSync(new URL('./openapi-examples.json', import.meta.url), 'utf8')) as Json;
  return examples;
}

export function completeDocument(doc: Json): Json {
  const out = to31(doc) as Json;
  out.openapi = '3.1.0';
  out.info.description =
    'Payment collection and payout service: deposits, refunds, cashouts, balances, events, lookups, validation, the sandbox and the admin API, in both API styles (JSON v3/v5 and the form-encoded streamline API). ' +
    'Signatures: HMAC-SHA256 over the raw body bytes, see each security scheme; in staging a refused signature carries the string to sign caja computed.';
  out.components.securitySchemes = {
    ...out.components.securitySchemes,
    v3Signature: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`SVC <64 hex>` (`D24` also accepted): HMAC-SHA256 of X-Date + X-Login + raw body (empty for GET), keyed with deposits.secret_key (v5: cashouts.secret_key). Always with X-Date and X-Login.' },
    xDate: { type: 'apiKey', in: 'header', name: 'X-Date', description: X_DATE.description },
    xLogin: { type: 'apiKey', in: 'header', name: 'X-Login', description: X_LOGIN.description },
    payloadSignature: { type: 'apiKey', in: 'header', name: 'Payload-Signature', description: 'Hex HMAC-SHA256 of the raw body, keyed with cashouts.secret_key; login and pass (cashouts set) travel in the body.' },
    readOnlyKey: { type: 'http', scheme: 'bearer', description: 'read_only_key of the merchant (safe in a front end)' },
    adminToken: { type: 'http', scheme: 'bearer', description: 'CAJA_ADMIN_TOKEN' },
  };
  // The merchant panel's and the operator console's HTML pages are not API.
  for (const path of Object.keys(out.paths)) if (path.startsWith('/panel') || path === '/ops' || path.startsWith('/ops/')) delete out.paths[path];
  const recorded = loadExamples();
  // Before the loop below, so that the streamline forms get their recorded examples too.
  Object.assign(out.paths, streamlinePaths());
  for (const [path, item] of Object.entries(out.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const key = `${method} ${path}`;
      if (op.security?.some((s: Json) => 'v3Signature' in s)) {
        op.security = [{ v3Signature: [], xDate: [], xLogin: [] }];
        op.parameters = [...(op.parameters ?? []), X_DATE, X_LOGIN];
        if (key === 'post /v3/deposits' || key === 'post /v3/refunds') op.parameters.push(IDEMPOTENCY);
      }
      if (op.security?.some((s: Json) => 'payloadSignature' in s)) op.parameters = [...(op.parameters ?? []), header('Payload-Signature', out.components.securitySchemes.payloadSignature.description, true)];
      const codes: Record<string, string> = { ...(op.security?.some((s: Json) => 'v3Signature' in s) ? { 400: AUTH_400, 401: '100 INVALID_CREDENTIALS' } : {}) };
      for (const [status, list] of Object.entries(ERRORS[key] ?? {})) codes[status] = codes[status] ? `${codes[status]}; ${list}` : list;
      for (const [status, list] of Object.entries(codes)) {
        if (op.responses?.[status]) op.responses[status].description = `Error codes: ${list}`;
      }
      if (Object.keys(codes).length) op['x-error-codes'] = codes;
      const ex = recorded[key];
      // JSON operations, and the streamline forms (added above), whose recorded request is the form's fields.
      const requestMedia = op.requestBody?.content?.['application/json'] ?? op.requestBody?.content?.['application/x-www-form-urlencoded'];
      if (ex?.request !== undefined && requestMedia) requestMedia.example = ex.request;
      for (const [status, body] of Object.entries((ex?.responses ?? {}) as Json)) {
        const response = op.responses?.[status];
        if (!response) continue;
        // An answer whose route declares no schema still shows what it looks like.
        response.content ??= { 'application/json': {} };
        const content = response.content['application/json'];
        if (content) content.example = body;
      }
    }
  }
  return out;
}

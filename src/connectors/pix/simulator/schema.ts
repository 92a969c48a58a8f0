// Validation against the Central Bank's API Pix OpenAPI document (test/fixtures/pix-api/openapi.json).
// The simulator checks every request body and parameter caja sends and every response and
// webhook it sends itself; the connector's tests may use the same class to check caja's side.
//
// OpenAPI 3.0 schemas are not quite JSON Schema, and the document has a few slips. They are
// adapted generically, each rule once, when the document is loaded:
// - `nullable: true` becomes a `null` type (OpenAPI 3.0 has no null type).
// - `$ref`s to `#/components/schemas/…` point into the registered document, so any schema of
//   the document can be compiled on its own.
// - Annotations JSON Schema does not know (`example`, `xml`, `externalDocs`, `discriminator`)
//   are dropped.
// - `pattern` is matched against the whole value (`^(?:…)$`), as the document's descriptions
//   mean it ("txid: 26 a 35 caracteres"); JSON Schema alone would accept any value *containing*
//   a match, so "10.5" passes `\d{1,10}\.\d{2}` if followed by a digit. Patterns written as
//   regular-expression literals (`/^\d{11}$/`, the CPF pattern) lose their slashes.
// - A `oneOf` whose branches are objects of one property each and require nothing can never
//   match exactly one branch (an object matches every branch that does not constrain it): each
//   branch is read as requiring its property. That is `valor.retirada` (`saque` or `troco`),
//   whose examples in the document fail without this reading.
// - A `location` property is a payload location without scheme (`pix.example.com/qr/v2/…`, in
//   the document's examples and in BR Codes), so its `format: uri` is read as `uri-reference`.
// And one erratum, checked at load so a corrected document makes it fail loudly:
// - `PixConsultados` (answer of GET /pix) requires `cobs`, a property it does not define; the
//   list is `pix`. The simulator answers `pix`, as PSPs do.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type Json = any;

export const PIX_API_FIXTURE = new URL('../../../../test/fixtures/pix-api/openapi.json', import.meta.url);
const DOC_ID = 'pix-api';
const DROPPED = new Set(['example', 'xml', 'externalDocs', 'discriminator']);
/** Errors any endpoint may answer ("Gerais" in the document's error section), plus 401 for a bad token. */
const GENERAL_ERRORS = new Set([400, 401, 403, 404, 410, 500, 503, 504]);

/** One entry of a problem's `violacoes`: what is wrong, where (`cob.valor.original`), and the value. */
export interface Violacao {
  razao: string;
  propriedade: string;
  valor?: string;
}

export function anchorPattern(pattern: string): string {
  const literal = /^\/(.*)\/[a-z]*$/s.exec(pattern);
  const body = literal ? literal[1]! : pattern;
  return `^(?:${body.replace(/^\^/, '').replace(/(?<!\\)\$$/, '')})$`;
}

/** Returns a JSON Schema (draft 7, as Ajv reads it) equivalent of an OpenAPI 3.0 schema. */
export function adaptSchema(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(adaptSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key === 'nullable') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/')) out.$ref = DOC_ID + value;
    else if (key === 'pattern' && typeof value === 'string') out.pattern = anchorPattern(value);
    else if (key === 'properties' || key === 'patternProperties' || key === 'definitions') {
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, adaptSchema(v)]));
    } else out[key] = adaptSchema(value);
  }
  if (Array.isArray(out.oneOf) && out.oneOf.length > 1 && out.oneOf.every(singlePropertyObject)) {
    out.oneOf = out.oneOf.map((b: Json) => ({ ...b, required: Object.keys(b.properties) }));
  }
  if (out.properties?.location?.format === 'uri') out.properties.location = { ...out.properties.location, format: 'uri-reference' };
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    if (out.type === undefined && out.enum === undefined) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

function singlePropertyObject(b: Json): boolean {
  return !!b && typeof b === 'object' && !b.$ref && !b.required && !!b.properties && Object.keys(b.properties).length === 1;
}

function applyErrata(schemas: Json): void {
  const pc = schemas.PixConsultados;
  if (!pc?.required?.includes('cobs') || pc.properties?.cobs) {
    throw new Error('API Pix document: the PixConsultados erratum no longer applies; review schema.ts');
  }
  pc.required = pc.required.filter((r: string) => r !== 'cobs');
}

function resolve(doc: Json, node: Json): Json {
  let n = node;
  for (let i = 0; n && typeof n.$ref === 'string' && i < 10; i++) {
    n = n.$ref
      .slice(2)
      .split('/')
      .reduce((o: Json, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return n;
}

function shown(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const s = typeof value === 'string' ? value : JSON.stringify(value);
  return s.length > 200 ? s.slice(0, 197) + '...' : s;
}

/** Turns Ajv errors into `violacoes`, one per property and reason, named from `prefix`. */
export function toViolacoes(errors: ErrorObject[] | null | undefined, prefix: string, data: unknown): Violacao[] {
  const seen = new Set<string>();
  const out: Violacao[] = [];
  for (const e of errors ?? []) {
    const parts = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    let value: unknown = parts.reduce((o: Json, k) => o?.[k], data);
    if (e.keyword === 'required') {
      parts.push((e.params as { missingProperty: string }).missingProperty);
      value = undefined;
    }
    if (e.keyword === 'additionalProperties') {
      parts.push((e.params as { additionalProperty: string }).additionalProperty);
    }
    const propriedade = [prefix, ...parts].filter(Boolean).join('.');
    const razao =
      e.keyword === 'required'
        ? `O campo ${propriedade} é obrigatório.`
        : `O campo ${propriedade} não respeita o schema (${e.message}).`;
    const key = propriedade + '\n' + razao;
    if (seen.has(key)) continue;
    seen.add(key);
    const v: Violacao = { razao, propriedade };
    const valor = shown(value);
    if (valor !== undefined) v.valor = valor;
    out.push(v);
  }
  return out;
}

export interface Operation {
  method: string;
  /** Path as the document writes it, e.g. `/cob/{txid}`. */
  path: string;
  op: Json;
}

export class PixApiSchemas {
  readonly doc: Json;
  readonly version: string;
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: Json) {
    this.doc = doc;
    this.version = String(doc.info?.version ?? '');
    const schemas = adaptSchema(doc.components.schemas);
    applyErrata(schemas);
    this.ajv = new Ajv({ strict: false, allErrors: true, logger: false });
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: DOC_ID, components: { schemas } });
  }

  static load(file: URL | string = PIX_API_FIXTURE): PixApiSchemas {
    return new PixApiSchemas(JSON.parse(readFileSync(file, 'utf8')));
  }

  operation(method: string, path: string): Operation {
    const op = this.doc.paths[path]?.[method.toLowerCase()];
    if (!op) throw new Error(`API Pix document has no ${method.toUpperCase()} ${path}`);
    return { method: method.toUpperCase(), path, op };
  }

  /** A compiled validator for a schema found at `where` (cached under that name). */
  validator(where: string, schema: Json): ValidateFunction {
    let v = this.compiled.get(where);
    if (!v) {
      v = this.ajv.compile(adaptSchema(schema));
      this.compiled.set(where, v);
    }
    return v;
  }

  /** Validates a named component schema (`Pix`, `CobGerada`, …). */
  validateComponent(name: string, data: unknown, prefix = ''): Violacao[] {
    if (!this.doc.components.schemas[name]) throw new Error(`no schema ${name}`);
    const v = this.validator(`#/components/schemas/${name}`, { $ref: `#/components/schemas/${name}` });
    return v(data) ? [] : toViolacoes(v.errors, prefix, data);
  }

  /** The request body of an operation; `prefix` names the object in violations (`cob`). */
  validateRequestBody(method: string, path: string, body: unknown, prefix: string): Violacao[] {
    const { op } = this.operation(method, path);
    const rb = resolve(this.doc, op.requestBody);
    if (!rb) return [];
    if (body === undefined || body === null) {
      return rb.required ? [{ razao: 'O corpo da requisição é obrigatório.', propriedade: prefix }] : [];
    }
    const schema = rb.content?.['application/json']?.schema;
    if (!schema) return [];
    const v = this.validator(`${method} ${path} request`, schema);
    return v(body) ? [] : toViolacoes(v.errors, prefix, body);
  }

  /**
   * Path and query parameters, given as the strings received. Integers and booleans are read
   * from their text first; a parameter not in the document is ignored.
   */
  validateParameters(method: string, path: string, given: { path?: Record<string, string>; query?: Record<string, unknown> }): Violacao[] {
    const { op } = this.operation(method, path);
    const params = [...(this.doc.paths[path].parameters ?? []), ...(op.parameters ?? [])].map((p: Json) => resolve(this.doc, p));
    const out: Violacao[] = [];
    for (const p of params) {
      if (p.in !== 'path' && p.in !== 'query') continue;
      const raw = (p.in === 'path' ? given.path : given.query)?.[p.name];
      if (raw === undefined || raw === '') {
        if (p.required) out.push({ razao: `O parâmetro ${p.name} é obrigatório.`, propriedade: p.name });
        continue;
      }
      if (Array.isArray(raw)) {
        out.push({ razao: `O parâmetro ${p.name} foi informado mais de uma vez.`, propriedade: p.name });
        continue;
      }
      const schema = resolve(this.doc, p.schema) ?? {};
      const type = schema.type ?? resolve(this.doc, schema.allOf?.[0])?.type;
      let value: unknown = raw;
      if (type === 'integer' && /^-?\d+$/.test(String(raw))) value = Number(raw);
      if (type === 'boolean' && (raw === 'true' || raw === 'false')) value = raw === 'true';
      const v = this.validator(`${method} ${path} parameter ${p.in} ${p.name}`, p.schema);
      if (!v(value)) {
        out.push({ razao: `O parâmetro ${p.name} não respeita o schema (${v.errors?.[0]?.message}).`, propriedade: p.name, valor: shown(raw)! });
      }
    }
    return out;
  }

  /**
   * A response: its status must be documented for the operation (or be one of the general
   * errors, which answer a `Problema`), its content type one the document lists, its body valid.
   * Returns what is wrong, empty when nothing is.
   */
  validateResponse(method: string, path: string, status: number, contentType: string | undefined, body: unknown): string[] {
    const { op } = this.operation(method, path);
    const declared = resolve(this.doc, op.responses?.[String(status)]);
    const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    let schema: Json;
    if (declared) {
      const content = declared.content as Json;
      if (!content) {
        return body === undefined || body === '' ? [] : [`${status} has no body in the document, one was sent`];
      }
      const media = content[type];
      if (!media) return [`${status} is documented as ${Object.keys(content).join(' or ')}, sent as ${type || 'no content type'}`];
      schema = media.schema;
    } else if (GENERAL_ERRORS.has(status)) {
      if (type !== 'application/problem+json' && type !== 'application/json') return [`${status} problem sent as ${type}`];
      schema = { $ref: '#/components/schemas/Problema' };
    } else {
      return [`status ${status} is not documented for ${method.toUpperCase()} ${path}`];
    }
    if (!schema) return [];
    const v = this.validator(`${method} ${path} response ${declared ? status : 'problem'} ${type}`, schema);
    if (v(body)) return [];
    return toViolacoes(v.errors, 'body', body).map((x) => `${x.razao}${x.valor !== undefined ? ` valor: ${x.valor}` : ''}`);
  }

  /** The body the PSP posts to `<webhookUrl>/pix` (the document's `listaPix` callback). */
  validateWebhookPix(body: unknown): Violacao[] {
    const rb = resolve(this.doc, this.doc.components.requestBodies.WebhookPixBody);
    const v = this.validator('webhook pix', rb.content['application/json'].schema);
    return v(body) ? [] : toViolacoes(v.errors, 'webhook', body);
  }
}

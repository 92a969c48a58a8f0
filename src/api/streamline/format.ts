// Streamline responses come in three formats chosen by the `type` field: JSON, XML, or a
// pipe-separated STRING of the values in field order. Errors are rendered in the same format.
import { XMLBuilder } from 'fast-xml-parser';

export type StreamlineFormat = 'json' | 'xml' | 'string';

export class StreamlineError extends Error {
  constructor(readonly errorCode: number, description: string) {
    super(description);
  }
}

/** `type` values seen in the wild: JSON, XML, STRING, and `pipe` for get_banks_by_country. */
export function pickFormat(type: unknown, fallback: StreamlineFormat): StreamlineFormat {
  if (typeof type !== 'string' || type.trim() === '') return fallback;
  const t = type.trim().toLowerCase();
  if (t === 'json') return 'json';
  if (t === 'xml') return 'xml';
  if (t === 'string' || t === 'pipe') return 'string';
  return fallback;
}

export type Fields = [string, string | number][];

const xml = new XMLBuilder({ ignoreAttributes: true, format: false, suppressEmptyNode: false });

export interface Rendered {
  contentType: string;
  body: string;
}

/** One record. */
export function renderRecord(fields: Fields, format: StreamlineFormat, root = 'response'): Rendered {
  if (format === 'json') return { contentType: 'application/json; charset=utf-8', body: JSON.stringify(Object.fromEntries(fields)) };
  if (format === 'xml') {
    return {
      contentType: 'application/xml; charset=utf-8',
      body: `<?xml version="1.0" encoding="UTF-8"?>\n${xml.build({ [root]: Object.fromEntries(fields.map(([k, v]) => [k, String(v)])) })}`,
    };
  }
  return { contentType: 'text/plain; charset=utf-8', body: fields.map(([, v]) => String(v)).join('|') };
}

/** A list of records (JSON array, XML <root><item>…</item></root>, one pipe line per record). */
export function renderList(records: Fields[], format: StreamlineFormat, root: string, item: string): Rendered {
  if (format === 'json') return { contentType: 'application/json; charset=utf-8', body: JSON.stringify(records.map((r) => Object.fromEntries(r))) };
  if (format === 'xml') {
    const items = records.map((r) => Object.fromEntries(r.map(([k, v]) => [k, String(v)])));
    return { contentType: 'application/xml; charset=utf-8', body: `<?xml version="1.0" encoding="UTF-8"?>\n${xml.build({ [root]: { [item]: items } })}` };
  }
  return { contentType: 'text/plain; charset=utf-8', body: records.map((r) => r.map(([, v]) => String(v)).join('|')).join('\n') };
}

/** How an endpoint reports errors: NewInvoice uses status 1 + desc, the others ERROR + description. */
export type ErrorShape = 'invoice' | 'standard';

/** NewInvoice adds error_code only from x_version 1.1 on. */
export function errorFields(err: StreamlineError, shape: ErrorShape, version11 = true): Fields {
  if (shape === 'invoice') return [['status', '1'], ['desc', err.message], ...(version11 ? ([['error_code', err.errorCode]] as Fields) : [])];
  return [['status', 'ERROR'], ['description', err.message], ['error_code', err.errorCode]];
}

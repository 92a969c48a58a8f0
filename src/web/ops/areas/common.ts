// What the console's areas (this folder) share beyond the gate (src/web/ops/route-types.ts OpsKit):
// the session cookie's name, a form field read as trimmed text, a path's id.
import { parseId } from '../../../domain/ids.ts';
import type { Ctx } from '../route-types.ts';

export const OPS_COOKIE = 'caja_ops';
export const OPS_LANG_COOKIE = 'caja_ops_lang';

export const text = (v: string | undefined, max = 500) => (typeof v === 'string' ? v.trim().slice(0, max) : '');
export const idOf = (c: Ctx) => parseId(c.params.id);

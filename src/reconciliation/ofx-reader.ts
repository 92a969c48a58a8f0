// A linear-time reader of OFX markup, 1.x SGML (leaf elements without end tags) and 2.x XML,
// into nested records (a repeated element becomes an array; a leaf's value is its text, the five
// XML entities and character references decoded). It replaces ofx-js, whose SGML-to-XML regular
// expressions backtrack exponentially (48 bytes blocked the process 2.4 s, doubling with each
// character). One pass over the text, every character looked at a bounded number of times:
//   - a tag opens an element; text right after it makes it a leaf (closed there, in SGML, or by
//     its end tag, in XML); an end tag closes the innermost open element of that name and every
//     element opened inside it, which were empty SGML leaves (`<MEMO>` with no text): each
//     becomes '' and the elements read inside it go back to its parent;
//   - comments and processing instructions (the `<?OFX …?>` header) are skipped;
//   - tag names are at most MAX_NAME characters, nesting at most MAX_DEPTH, and text between
//     elements, a DOCTYPE, an unclosed tag, comment or instruction, an end tag that closes
//     nothing, or a file ending inside an element are refused with the line they are on.
// Pure: throws OfxSyntaxError.

export const MAX_DEPTH = 32;
export const MAX_NAME = 64;

export type OfxRecord = { [name: string]: OfxValue | OfxValue[] };
export type OfxValue = string | OfxRecord;

export class OfxSyntaxError extends Error {
  constructor(readonly line: number, readonly problem: string) {
    super(`line ${line}: ${problem}`);
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const decode = (s: string) =>
  s.includes('&')
    ? s.replace(/&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(amp|lt|gt|quot|apos|nbsp));/g, (m, hex: string, dec: string, name: string) => {
      if (name) return ENTITIES[name]!;
      const cp = hex ? parseInt(hex, 16) : Number(dec);
      return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : m;
    })
    : s;

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const shown = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

interface Open {
  name: string;
  node: OfxRecord;
  parent: OfxRecord;
  /** True until a child element or text is seen: text now makes it a leaf. */
  fresh: boolean;
}

/** Reads the markup from the first `<OFX>` on (the 1.x header lines before it are not markup). */
export function readOfx(source: string): OfxRecord {
  const start = source.indexOf('<OFX>');
  const root: OfxRecord = {};
  if (start < 0) throw new OfxSyntaxError(1, 'the <OFX> element is missing');
  // Lines are counted as the reader moves: `line` is the line of `pos`.
  let line = 1;
  let counted = 0;
  const lineAt = (pos: number) => {
    for (; counted < pos; counted++) if (source.charCodeAt(counted) === 10) line++;
    return line;
  };
  const fail = (pos: number, problem: string): never => {
    throw new OfxSyntaxError(lineAt(pos), problem);
  };
  const stack: Open[] = [];
  /** How many open elements have each name: an end tag closing nothing is known without a walk. */
  const openCount = new Map<string, number>();
  /** The leaf just read, whose XML end tag may follow. */
  let lastLeaf: string | null = null;

  const attach = (parent: OfxRecord, name: string, value: OfxValue) => {
    const had = parent[name];
    if (had === undefined) parent[name] = value;
    else if (Array.isArray(had)) had.push(value);
    else parent[name] = [had, value];
  };
  const replaceLast = (parent: OfxRecord, name: string, value: OfxValue) => {
    const had = parent[name];
    if (Array.isArray(had)) had[had.length - 1] = value;
    else parent[name] = value;
  };
  const pop = () => {
    const top = stack.pop()!;
    openCount.set(top.name, openCount.get(top.name)! - 1);
    return top;
  };

  let i = start;
  const n = source.length;
  while (i < n) {
    const lt = source.indexOf('<', i);
    const textEnd = lt < 0 ? n : lt;
    if (textEnd > i) {
      const raw = source.slice(i, textEnd);
      const text = raw.trim();
      if (text) {
        const top = stack[stack.length - 1];
        if (!top) fail(i, `text '${shown(text)}' after the end of <OFX>`);
        if (!top!.fresh) fail(i + raw.indexOf(text[0]!), `text '${shown(text)}' between elements inside <${top!.name}>`);
        pop();
        replaceLast(top!.parent, top!.name, decode(text));
        lastLeaf = top!.name;
      }
    }
    if (lt < 0) break;
    i = lt;
    if (source.startsWith('<!--', i)) {
      const end = source.indexOf('-->', i + 4);
      if (end < 0) fail(i, 'unclosed comment (<!-- without -->)');
      i = end + 3;
      continue;
    }
    if (source.startsWith('<?', i)) {
      const end = source.indexOf('?>', i + 2);
      if (end < 0) fail(i, 'unclosed processing instruction (<? without ?>)');
      i = end + 2;
      continue;
    }
    if (source.startsWith('<!', i)) fail(i, 'a declaration (<!…>) is not allowed in OFX');
    const gt = source.indexOf('>', i + 1);
    const nextLt = source.indexOf('<', i + 1);
    if (gt < 0 || (nextLt >= 0 && nextLt < gt)) fail(i, `unclosed tag '${shown(source.slice(i, nextLt >= 0 && (gt < 0 || nextLt < gt) ? nextLt : gt < 0 ? n : gt))}'`);
    let body = source.slice(i + 1, gt).trim();
    const closing = body.startsWith('/');
    const selfClosing = !closing && body.endsWith('/');
    if (closing) body = body.slice(1).trim();
    if (selfClosing) body = body.slice(0, -1).trim();
    const name = body;
    if (name.length > MAX_NAME) fail(i, `tag name longer than ${MAX_NAME} characters ('${shown(name)}')`);
    if (!NAME.test(name)) fail(i, `'<${shown(source.slice(i + 1, gt))}>' is not an OFX tag`);
    if (closing) {
      if (lastLeaf === name) {
        lastLeaf = null;
      } else if ((openCount.get(name) ?? 0) > 0) {
        // Closes it and whatever was left open inside it: those were SGML leaves with no value
        // (`<MEMO>` then `<NAME>x`), so what was read as their children goes back to their parent.
        for (let top = pop(); top.name !== name; top = pop()) {
          replaceLast(top.parent, top.name, '');
          for (const [k, v] of Object.entries(top.node)) for (const x of Array.isArray(v) ? v : [v]) attach(top.parent, k, x);
        }
        lastLeaf = null;
      } else {
        fail(i, `</${shown(name)}> closes no open element`);
      }
    } else {
      lastLeaf = null;
      const top = stack[stack.length - 1];
      if (!top && Object.keys(root).length) fail(i, `<${shown(name)}> after the end of <OFX>`);
      if (stack.length >= MAX_DEPTH) fail(i, `elements nested deeper than ${MAX_DEPTH} levels`);
      const parent = top ? top.node : root;
      if (top) top.fresh = false;
      if (selfClosing) {
        attach(parent, name, '');
      } else {
        const node: OfxRecord = {};
        attach(parent, name, node);
        stack.push({ name, node, parent, fresh: true });
        openCount.set(name, (openCount.get(name) ?? 0) + 1);
      }
    }
    i = gt + 1;
  }
  if (stack.length) fail(n, `the file ends inside <${stack[0]!.name}>${stack.length > 1 ? ` (at <${stack[stack.length - 1]!.name}>)` : ''}`);
  return root;
}

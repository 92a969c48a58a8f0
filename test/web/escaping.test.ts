// Issue 28 item 3, escaping by default: the html`…` tag (src/web/html.ts) and a guard that fails
// when a page builds HTML without it. The guard parses every page module with the TypeScript
// compiler and refuses (a) a template literal whose text holds markup (`<tag`, `</`, `<!`) unless
// it is tagged html`…`, and (b) any call of esc(), which lives inside html.ts only. Then, with the
// type checker, (c) SafeHtml turned back into a string, where the tag would escape it as text:
// interpolated in an untagged template, joined with .join(), or added with +.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { html, join as joinHtml, raw, SafeHtml } from '../../src/web/html.ts';

/** Every HTML builder: all of src/web (html.ts aside), the panel's views and routes, and the streamline return page. */
function pageModules(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
  return [...walk('src/web').filter((f) => f !== join('src', 'web', 'html.ts')), ...walk('src/panel/views'), ...walk('src/panel/routes'), 'src/api/streamline/deposits.ts'];
}

const MARKUP = /<[a-zA-Z!/]/;

/** Where a file builds HTML outside the tag, as "file:line what". */
export function violations(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (n: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1}`;
  const visit = (n: ts.Node): void => {
    if (ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateExpression(n)) {
      const parts = ts.isNoSubstitutionTemplateLiteral(n) ? [n.text] : [n.head.text, ...n.templateSpans.map((s) => s.literal.text)];
      const tagged = ts.isTaggedTemplateExpression(n.parent) && n.parent.template === n && n.parent.tag.getText(source) === 'html';
      if (!tagged && parts.some((p) => MARKUP.test(p))) found.push(`${at(n)} markup in a template literal without html\`…\``);
    }
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'esc') found.push(`${at(n)} esc() outside html.ts`);
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

test('every page builds its HTML with the html`…` tag: no untagged markup templates, no esc() outside html.ts', () => {
  const files = pageModules();
  assert.ok(files.length >= 10, `page modules found: ${files.join(', ')}`);
  assert.deepEqual(files.flatMap((f) => violations(f)), []);
});

/** Where SafeHtml is flattened into a plain string (typed check over the page modules). */
function flattened(files: string[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile('tsconfig.json', {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const program = ts.createProgram(files, { ...config!.options, noEmit: true });
  const checker = program.getTypeChecker();
  const isSafe = (n: ts.Node) => /\bSafeHtml\b/.test(checker.typeToString(checker.getTypeAtLocation(n)));
  const found: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file)!;
    const at = (n: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1}`;
    const visit = (n: ts.Node): void => {
      if (ts.isTemplateExpression(n) && !ts.isTaggedTemplateExpression(n.parent)) {
        for (const span of n.templateSpans) if (isSafe(span.expression)) found.push(`${at(span)} SafeHtml in an untagged template`);
      }
      if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken && (isSafe(n.left) || isSafe(n.right))) found.push(`${at(n)} SafeHtml added with +`);
      if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 'join' && isSafe(n.expression.expression)) {
        found.push(`${at(n)} SafeHtml[] joined into a string (interpolate the array, or use join() from html.ts)`);
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
  }
  return found;
}

test('no page flattens SafeHtml into a string the tag would then escape as text', () => {
  assert.deepEqual(flattened(pageModules()), []);
});

test('the guard catches markup built by hand and a manual esc()', () => {
  assert.equal(violations('x.ts', 'const a = `<p>${name}</p>`;').length, 1);
  assert.equal(violations('x.ts', 'const a = `${x}</td>`;').length, 1);
  assert.equal(violations('x.ts', 'const a = esc(name);').length, 1);
  assert.equal(violations('x.ts', 'const a = other`<p>${name}</p>`;').length, 1);
  assert.deepEqual(violations('x.ts', 'const a = html`<p>${name}</p>`; const b = `a < b ${c}`;'), []);
});

test('html`…` escapes every interpolated value: < > & " \'', () => {
  const s = html`<p title="${`"'<>&`}">${'<script>alert(1)</script> & co'}</p>`;
  assert.ok(s instanceof SafeHtml);
  assert.equal(String(s), '<p title="&quot;&#39;&lt;&gt;&amp;">&lt;script&gt;alert(1)&lt;/script&gt; &amp; co</p>');
});

test('nested html`…` is not escaped twice; raw() passes through; arrays join; null, undefined and false are empty; numbers print', () => {
  const inner = html`<b>${'a&b'}</b>`;
  assert.equal(String(html`<p>${inner}</p>`), '<p><b>a&amp;b</b></p>');
  assert.equal(String(html`<style>${raw('a>b{}')}</style>`), '<style>a>b{}</style>');
  assert.equal(String(html`<ul>${['<x>', 'y'].map((v) => html`<li>${v}</li>`)}</ul>`), '<ul><li>&lt;x&gt;</li><li>y</li></ul>');
  assert.equal(String(html`[${null}${undefined}${false}]`), '[]');
  assert.equal(String(html`${0} ${12.5} ${-3}`), '0 12.5 -3');
  assert.equal(String(html`${[['<a>'], [html`<i></i>`]]}`), '&lt;a&gt;<i></i>');
  assert.equal(String(joinHtml([html`<i>1</i>`, '<2>'], ', ')), '<i>1</i>, &lt;2&gt;');
  // A plain string that looks like markup is still text: only the tag and raw() make HTML.
  assert.equal(String(html`${'<i>x</i>'}`), '&lt;i&gt;x&lt;/i&gt;');
});

// A person at the panel without a browser: a cookie jar, forms posted with the CSRF token read
// from the page they are on, redirects followed as a browser would (303 → GET).
import assert from 'node:assert/strict';

export interface PanelPage {
  status: number;
  url: string;
  html: string;
  headers: Headers;
}

export class PanelClient {
  cookies = new Map<string, string>();

  constructor(readonly base: string) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(r: Response): void {
    for (const c of r.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (/Max-Age=0/.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(method: string, path: string, body?: URLSearchParams | FormData, headers: Record<string, string> = {}): Promise<PanelPage> {
    let url = this.base + path;
    let m = method;
    let b: URLSearchParams | FormData | undefined = body;
    for (let hop = 0; hop < 5; hop++) {
      const r = await fetch(url, { method: m, body: b, redirect: 'manual', headers: { cookie: this.cookieHeader, origin: this.base, ...headers } });
      this.keep(r);
      if (r.status >= 300 && r.status < 400) {
        url = new URL(r.headers.get('location')!, url).toString();
        m = 'GET';
        b = undefined;
        continue;
      }
      return { status: r.status, url: url.replace(this.base, ''), html: await r.text(), headers: r.headers };
    }
    throw new Error('too many redirects');
  }

  get(path: string) {
    return this.request('GET', path);
  }

  /** Posts fields to `action` with the CSRF token of the page at `from`. */
  async submit(from: string, action: string, fields: Record<string, string> = {}): Promise<PanelPage> {
    const page = await this.get(from);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.html)?.[1];
    assert.ok(csrf, `no CSRF token on ${from} (${page.status} ${page.url})`);
    return this.request('POST', action, new URLSearchParams({ csrf, ...fields }));
  }

  async signIn(email: string, password: string): Promise<PanelPage> {
    return this.request('POST', '/panel/login', new URLSearchParams({ email, password }));
  }
}

export const sessionCookie = (c: PanelClient) => c.cookies.get('caja_panel');

// Pages in a real browser (Debian's Chromium through playwright-core), as the console's and the
// panel's browser tests drive them: one Chromium per harness, started on the first open(), and a
// new browser context for each open() (its own cookies and storage, as another person's browser:
// a context costs little, a Chromium about a second of CPU to start), CSP reports collected from
// the console, and each page checked with axe-core (no serious or critical violation) and
// screenshotted under test/artifacts/.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** A suite's `skip`: false, or why it cannot run here. */
export const skipWithoutChromium: false | string = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
export const ARTIFACTS = join(process.cwd(), 'test', 'artifacts');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
// The background-networking flags: this machine's closed network refuses what Chromium would fetch.
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface BrowserHarness {
  /** A new browser context (its own cookies) and its first page. */
  open(opts?: { locale?: string; viewport?: { width: number; height: number }; acceptDownloads?: boolean; timeoutMs?: number; ignoreHTTPSErrors?: boolean }): Promise<Page>;
  /** Axe and CSP checks of the loaded page, then its screenshot `<prefix><name>.png`. */
  check(p: Page, name: string): Promise<void>;
  /** Forgets the console errors collected so far (a test that causes a refusal on purpose). */
  clearConsoleErrors(): void;
  close(): Promise<void>;
}

export function browserHarness(screenshotPrefix: string): BrowserHarness {
  let browser: Promise<Browser> | undefined;
  const contexts: BrowserContext[] = [];
  const consoleErrors: string[] = [];
  return {
    async open(opts = {}) {
      mkdirSync(ARTIFACTS, { recursive: true });
      browser ??= chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
      const context = await (await browser).newContext({
        locale: opts.locale ?? 'en-US', viewport: opts.viewport ?? { width: 1280, height: 900 }, acceptDownloads: opts.acceptDownloads ?? false,
        // A provider simulator's own CA (the Adyen simulator's hosted page) is not the system's.
        ignoreHTTPSErrors: opts.ignoreHTTPSErrors ?? false,
      });
      context.setDefaultTimeout(opts.timeoutMs ?? 15_000);
      context.on('console', (msg) => {
        if (msg.type() === 'error') consoleErrors.push(`${msg.location().url}: ${msg.text()}`);
      });
      contexts.push(context);
      return context.newPage();
    },
    async check(p, name) {
      await p.waitForLoadState('load');
      await p.evaluate(AXE);
      const violations = await p.evaluate(async () => {
        const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
        return r.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical').map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
      });
      assert.deepEqual(violations, [], `${name}: accessibility`);
      assert.deepEqual(consoleErrors.filter((e) => /Content Security Policy|Refused/.test(e)), [], `${name}: CSP`);
      await p.screenshot({ path: join(ARTIFACTS, `${screenshotPrefix}${name}.png`), fullPage: true });
    },
    clearConsoleErrors() {
      consoleErrors.length = 0;
    },
    async close() {
      for (const c of contexts) await c.close();
      await (await browser)?.close();
    },
  };
}

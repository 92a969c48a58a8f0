// Webhook delivery: when a charge is paid (or a devolução reaches DEVOLVIDO or NAO_REALIZADO) the
// PSP posts `{"pix": [...]}` to `<webhookUrl>/pix`, the document's `listaPix` callback.
// Retried on a non-2xx answer or a failed connection, with doubling delays. Over https the
// simulator presents its own client certificate (PSPs call webhooks over mTLS) and checks the
// receiver's certificate against the system's CAs plus `extraCa`. Modes, for tests:
// deliver (normal), drop (the notification is lost: recorded, never sent), duplicate (the same
// notification is posted twice, each with its own retries).
import http from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import type { PixApiSchemas } from './schema.ts';
import type { Store } from './store.ts';

export type WebhookMode = 'deliver' | 'drop' | 'duplicate';
type Json = any;

export interface WebhookSenderOptions {
  /** Attempts after the first one (default 4). */
  retries?: number;
  /** Delay before the first retry, doubled each time (default 250 ms). */
  backoffMs?: number;
  timeoutMs?: number;
  clientCert?: { cert: string; key: string };
  extraCa?: string;
}

export class WebhookSender {
  mode: WebhookMode = 'deliver';
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  /** Bumped by cancel(): deliveries of an older generation stop retrying. */
  private generation = 0;
  private readonly timers = new Map<NodeJS.Timeout, () => void>();

  constructor(
    private readonly store: Store,
    private readonly schemas: PixApiSchemas,
    private readonly opts: WebhookSenderOptions = {},
  ) {}

  /** Sends `pix` to the webhook registered for `chave`, if any, according to the mode. */
  notify(chave: string, pix: Json[], opts: { validate?: boolean } = {}): void {
    const hook = this.store.state.webhooks[chave];
    if (!hook || pix.length === 0) return;
    const url = hook.webhookUrl.replace(/\/+$/, '') + '/pix';
    const body = { pix };
    // Efí's send notifications (./sends.ts) are the PSP's own, outside the API Pix document.
    const errors = opts.validate === false ? [] : this.schemas.validateWebhookPix(body);
    if (errors.length) {
      this.store.violation({ side: 'webhook', method: 'POST', path: url, errors: errors.map((e) => `${e.propriedade}: ${e.razao}`) });
    }
    const endToEndIds = pix.map((p) => p.endToEndId as string);
    if (this.mode === 'drop') {
      this.store.state.deliveries.push({ url, status: null, attempt: 0, endToEndIds, at: new Date().toISOString(), dropped: true });
      this.store.save();
      return;
    }
    const copies = this.mode === 'duplicate' ? 2 : 1;
    for (let i = 0; i < copies; i++) this.track(this.deliver(url, JSON.stringify(body), endToEndIds));
  }

  /** Resolves when every delivery under way (retries included) has ended. */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  /** Abandons the retries of every delivery under way (a control reset). */
  cancel(): void {
    this.generation++;
    for (const [t, resolve] of this.timers) {
      clearTimeout(t);
      resolve();
    }
    this.timers.clear();
  }

  stop(): void {
    this.stopped = true;
    this.cancel();
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private async deliver(url: string, body: string, endToEndIds: string[]): Promise<void> {
    const retries = this.opts.retries ?? 4;
    const backoff = this.opts.backoffMs ?? 250;
    const generation = this.generation;
    for (let attempt = 1; attempt <= retries + 1 && !this.stopped && generation === this.generation; attempt++) {
      const { status, error } = await this.post(url, body);
      if (generation !== this.generation) return; // reset meanwhile: not this state's delivery
      this.store.state.deliveries.push({ url, status, attempt, endToEndIds, at: new Date().toISOString(), ...(error ? { error } : {}) });
      this.store.save();
      if (status !== null && status >= 200 && status < 300) return;
      if (attempt <= retries) await this.sleep(backoff * 2 ** (attempt - 1));
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.set(t, resolve);
    });
  }

  private post(url: string, body: string): Promise<{ status: number | null; error?: string }> {
    return new Promise((resolve) => {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        resolve({ status: null, error: 'invalid URL' });
        return;
      }
      const secure = target.protocol === 'https:';
      const options: https.RequestOptions = {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'caja-pix-psp-simulator' },
        timeout: this.opts.timeoutMs ?? 5000,
      };
      if (secure) {
        if (this.opts.clientCert) Object.assign(options, this.opts.clientCert);
        if (this.opts.extraCa) options.ca = [...rootCertificates, this.opts.extraCa];
      }
      const req = (secure ? https : http).request(target, options, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? null }));
        res.on('error', (e) => resolve({ status: null, error: e.message }));
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (e) => resolve({ status: null, error: e.message }));
      req.end(body);
    });
  }
}

// A TCP proxy the test controls, between caja and PostgreSQL, to make the network faults a
// failover or a partition makes: every connection reset at once (RST, as a killed host's kernel
// answers), or a black hole (packets held: nothing forwarded, nothing refused, new connections
// accepted and never answered), and healed again.
import { createServer, type Server, type Socket, connect } from 'node:net';

type Mode = 'pass' | 'blackhole';

export class TcpProxy {
  private mode: Mode = 'pass';
  private readonly pairs = new Set<{ client: Socket; upstream: Socket | null }>();
  private server: Server | null = null;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<this> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  private accept(client: Socket): void {
    const pair: { client: Socket; upstream: Socket | null } = { client, upstream: null };
    this.pairs.add(pair);
    const forget = () => {
      this.pairs.delete(pair);
      client.destroy();
      pair.upstream?.destroy();
    };
    client.on('error', forget).on('close', forget);
    // In the black hole a new connection is accepted and then hears nothing, ever.
    if (this.mode === 'blackhole') {
      client.pause();
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    pair.upstream = upstream;
    upstream.on('error', forget).on('close', forget);
    client.on('data', (d) => {
      if (this.mode === 'pass') upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (this.mode === 'pass') client.write(d);
    });
  }

  /** Connections open through the proxy now. */
  get connections(): number {
    return this.pairs.size;
  }

  /** Resets every open connection (TCP RST to caja, close to the server). */
  reset(): void {
    for (const { client, upstream } of [...this.pairs]) {
      client.resetAndDestroy();
      upstream?.destroy();
    }
  }

  /** From now on nothing crosses, in either direction, and nothing is refused. */
  blackhole(): void {
    this.mode = 'blackhole';
  }

  /**
   * The partition ends: new connections pass again. The connections held through it are closed,
   * as their peers gave up on them long ago.
   */
  heal(): void {
    this.mode = 'pass';
    for (const { client, upstream } of [...this.pairs]) {
      if (!upstream) {
        client.destroy();
      }
    }
  }

  async close(): Promise<void> {
    this.reset();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

// When to try again: the row's own schedule (exponential, from config, with jitter so that a
// merchant coming back up is not hit by every retry at the same instant), and an in-memory
// per-origin gate so that one slow or failing merchant endpoint cannot hold every delivery slot
// nor be hammered by the rows queued behind it.

/** Seconds to wait after failed attempt number `attemptNo` (1-based), ±20% jitter. */
export function retryDelaySeconds(attemptNo: number, schedule: number[], random: () => number = Math.random): number {
  const base = schedule[Math.min(attemptNo, schedule.length) - 1] ?? schedule[schedule.length - 1];
  return base * (0.8 + 0.4 * random());
}

interface OriginState {
  inFlight: number;
  failures: number;
  blockedUntil: number;
}

export class OriginGate {
  private readonly origins = new Map<string, OriginState>();

  constructor(
    private readonly perOriginLimit: number,
    /** Longest pause of an origin after consecutive failures. */
    private readonly maxPauseMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private state(origin: string): OriginState {
    let s = this.origins.get(origin);
    if (!s) {
      s = { inFlight: 0, failures: 0, blockedUntil: 0 };
      this.origins.set(origin, s);
    }
    return s;
  }

  /** Origins that must not be claimed for now: pausing after failures, or at their limit. */
  excluded(): string[] {
    const t = this.now();
    const out: string[] = [];
    for (const [origin, s] of this.origins) {
      if (s.blockedUntil > t || s.inFlight >= this.perOriginLimit) out.push(origin);
      // Forget healthy idle origins so the map stays as small as the set of active merchants.
      else if (s.inFlight === 0 && s.failures === 0) this.origins.delete(origin);
    }
    return out;
  }

  inFlight(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [origin, s] of this.origins) if (s.inFlight > 0) out[origin] = s.inFlight;
    return out;
  }

  inFlightOf(origin: string): number {
    return this.origins.get(origin)?.inFlight ?? 0;
  }

  start(origin: string): void {
    this.state(origin).inFlight++;
  }

  /**
   * `healthy` false (timeouts, connection errors, 5xx, 429) pauses the origin: 250 ms after the
   * first failure, doubling up to maxPauseMs. A 4xx is the merchant's answer, not a sign of an
   * overloaded endpoint, so it does not pause other deliveries.
   */
  finish(origin: string, healthy: boolean): void {
    const s = this.state(origin);
    s.inFlight = Math.max(0, s.inFlight - 1);
    if (healthy) {
      s.failures = 0;
      s.blockedUntil = 0;
    } else {
      s.failures++;
      s.blockedUntil = this.now() + Math.min(this.maxPauseMs, 250 * 2 ** Math.min(s.failures - 1, 20));
    }
  }

  /** Time until the earliest paused origin reopens, for the poll loop's sleep. */
  nextReopenMs(): number | null {
    const t = this.now();
    let min: number | null = null;
    for (const s of this.origins.values()) {
      if (s.blockedUntil > t && (min === null || s.blockedUntil - t < min)) min = s.blockedUntil - t;
    }
    return min;
  }
}

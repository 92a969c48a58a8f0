// A small in-process cache for rows that every request reads and operators rarely change
// (credentials, exchange rates, customer-limit rules). Each read saved is a database round trip
// saved on the hottest paths. Entries live `ttlMs`: a change made by another process (another
// instance, the CLI) is seen within that time; one made through this process clears the cache at
// once (Caches.changed). Concurrent misses for one key share one load, and a failed load is not
// kept. ttlMs 0 turns caching off.
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly loading = new Map<string, Promise<V>>();
  /** Bumped by clear(): a load that started before a clear must not store what it read. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * The cached value of `key`, or what `load` gives (kept unless `keep` says no: e.g. an unknown
   * login is not kept, so that guessing logins cannot fill the cache).
   */
  async get(key: string, load: () => Promise<V>, keep: (v: V) => boolean = () => true): Promise<V> {
    if (this.ttlMs === 0) return load();
    const hit = this.entries.get(key);
    if (hit && hit.until > this.clock()) return hit.value;
    const pending = this.loading.get(key);
    if (pending) return pending;
    const generation = this.generation;
    // Only this load's own entry: after a clear(), a newer load of the key may be pending.
    const done = () => {
      if (this.loading.get(key) === p) this.loading.delete(key);
    };
    const p: Promise<V> = load().then(
      (value) => {
        done();
        if (keep(value) && generation === this.generation) this.store(key, value);
        return value;
      },
      (err: unknown) => {
        done();
        throw err;
      },
    );
    this.loading.set(key, p);
    return p;
  }

  private store(key: string, value: V): void {
    this.entries.delete(key);
    // Oldest first (Map keeps insertion order): past the bound, the oldest entry goes.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until: this.clock() + this.ttlMs });
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.loading.clear();
  }
}

/** The process's caches by name, cleared together when this process changes what they hold. */
export class Caches {
  private readonly all = new Map<string, TtlCache<unknown>>();

  constructor(private readonly ttlMs: number) {}

  of<V>(name: string): TtlCache<V> {
    let c = this.all.get(name);
    if (!c) this.all.set(name, (c = new TtlCache<unknown>(this.ttlMs)));
    return c as TtlCache<V>;
  }

  /** A merchant, credential, exchange rate or limit rule was written: forget every copy. */
  changed(): void {
    for (const c of this.all.values()) c.clear();
  }
}

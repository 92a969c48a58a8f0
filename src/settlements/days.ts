// Days of a merchant's timezone as instants (pure): a settlement report covers one local day,
// [00:00, next 00:00) in the merchant's IANA timezone, whatever its length (23 or 25 hours on a
// daylight-saving change).

/** Whether `tz` is an IANA timezone this runtime knows. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz.length > 0 && tz.length <= 64;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(tz, f);
  }
  return f;
}

/** The wall-clock fields of `instant` in `tz`, as a UTC timestamp (ms). */
function wallClock(instant: number, tz: string): number {
  const p = Object.fromEntries(formatter(tz).formatToParts(new Date(instant)).map((x) => [x.type, x.value]));
  return Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
}

/** The instant the local day `day` (YYYY-MM-DD) starts in `tz`. */
export function dayStart(day: string, tz: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d);
  // Offset at a first guess, then at the corrected instant (a change of offset that night).
  let t = wall - (wallClock(wall, tz) - wall);
  t = wall - (wallClock(t, tz) - t);
  return new Date(t);
}

/** The local day (YYYY-MM-DD) `instant` falls on in `tz`. */
export function localDay(instant: Date, tz: string): string {
  return new Date(wallClock(instant.getTime(), tz)).toISOString().slice(0, 10);
}

/** The day after `day`. */
export function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/** [start, end) of the local day `day` in `tz`. */
export function dayBounds(day: string, tz: string): { start: Date; end: Date } {
  return { start: dayStart(day, tz), end: dayStart(nextDay(day), tz) };
}

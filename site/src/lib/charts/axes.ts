/**
 * Ticks and their labels, chosen by us rather than by Plot: a log axis's own ticks (1, 2, 3 ... 10)
 * label depths no suite runs and skip the ones it does (16), '~s' writes "0k" and "65.536k", and a
 * time axis over one day labels its ticks with ISO time stamps. Every function here is pure.
 */

/** 0 and evenly spaced round steps (1, 2 or 5 × 10^n) up to the first at or above `max`. */
export function linearTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let v = 0; ticks.length === 0 || ticks.at(-1)! < max; v += step) ticks.push(round(v));
  return ticks;
}

/**
 * Ticks for a log axis from `min` to `max`: 1, 2, 5 × 10^n within the range (one below and one
 * above, so the marks sit inside the ticks), thinned to powers of ten when there would be too many.
 */
export function logTicks(min: number, max: number, most = 8): number[] {
  const lo = Math.floor(Math.log10(Math.max(min, Number.MIN_VALUE)));
  const hi = Math.ceil(Math.log10(max));
  const all: number[] = [];
  for (let e = lo; e <= hi; e++) for (const m of [1, 2, 5]) all.push(round(m * 10 ** e));
  const first = all.findLastIndex((v) => v <= min);
  const last = all.findIndex((v) => v >= max);
  const within = all.slice(Math.max(0, first), last < 0 ? undefined : last + 1);
  if (within.length <= most) return within;
  // Powers of ten from the one at or below min to the one at or above max (every k-th if many decades).
  const step = Math.ceil((hi - lo + 1) / most);
  const tens: number[] = [];
  for (let e = lo; e < hi + step; e += step) tens.push(round(10 ** e));
  return tens;
}

/**
 * A log axis that labels every tick it is given. Plot hands a log scale's tickFormat function to
 * d3's log tickFormat, which blanks the labels it thinks crowded (a sweep lost "64", "4 KiB" and
 * "64 KiB" that way); so the axis is linear over log10 of the values, through the scale's
 * transform, and the ticks and domain are given in that space. Marks keep their raw values.
 */
export function logScale(
  ticks: readonly number[],
  format: (v: number) => string,
  domain: readonly [number, number] = [ticks[0]!, ticks.at(-1)!],
): {
  type: 'linear';
  transform: (v: number) => number;
  ticks: number[];
  domain: number[];
  tickFormat: (v: number) => string;
} {
  return {
    type: 'linear',
    transform: Math.log10,
    ticks: ticks.map(Math.log10),
    domain: domain.map(Math.log10),
    tickFormat: (v: number) => format(round(10 ** v)),
  };
}

function round(v: number): number {
  return Number(v.toPrecision(12));
}

/** ops/s on an axis: "0", "50k", "1.2M". */
export function opsTick(n: number): string {
  if (n === 0) return '0';
  if (n >= 1e6) return `${trim(n / 1e6)}M`;
  if (n >= 1e3) return `${trim(n / 1e3)}k`;
  return trim(n);
}

const trim = (n: number) => String(Number(n.toFixed(n >= 100 ? 0 : n >= 10 ? 1 : 2)));

/**
 * Latency in the unit that reads better: microseconds while the largest is under a millisecond,
 * milliseconds from there (a tail of 42,000 µs reads as 42 ms).
 */
export function latencyUnit(maxUs: number): { unit: 'µs' | 'ms'; div: number } {
  return maxUs >= 1000 ? { unit: 'ms', div: 1000 } : { unit: 'µs', div: 1 };
}

/** A tick of a log latency axis, already divided into its unit: "0.2", "5", "100". */
export function latencyTick(v: number): string {
  return v >= 1 ? String(Number(v.toPrecision(6))) : String(Number(v.toPrecision(2)));
}

const DAY_FORMAT = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});
const MONTH_FORMAT = new Intl.DateTimeFormat('en-GB', { month: 'short', year: 'numeric', timeZone: 'UTC' });

/** A date as people write it, in UTC: "4 Mar 2025" (or "Mar 2025" for a month tick). */
export function humanDate(d: Date | string, precision: 'day' | 'month' = 'day'): string {
  const date = typeof d === 'string' ? new Date(d) : d;
  if (Number.isNaN(date.getTime())) return String(d);
  return (precision === 'month' ? MONTH_FORMAT : DAY_FORMAT).format(date);
}

/** A date and time to the minute, in UTC: "4 Mar 2025, 10:15 UTC". */
export function humanDateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${humanDate(d)}, ${d.toISOString().slice(11, 16)} UTC`;
}

const DAY = 86_400_000;

/**
 * Ticks for a time axis: whole days (UTC midnight) when the span is short, else the first of a
 * month, at most `most` of them, always covering the first and last time; the domain is the first
 * and last tick, so no dot sits on the frame.
 */
export function timeTicks(times: readonly number[], most = 6): { ticks: Date[]; monthly: boolean } {
  const lo = Math.min(...times);
  const hi = Math.max(...times);
  const span = hi - lo;
  if (span <= 45 * DAY) {
    const first = Math.floor(lo / DAY) * DAY;
    const last = Math.max(first + DAY, Math.ceil(hi / DAY) * DAY + (hi % DAY === 0 ? DAY : 0));
    const days = Math.round((last - first) / DAY);
    const step = Math.max(1, Math.ceil(days / (most - 1)));
    const ticks: Date[] = [];
    for (let t = first; t < last + step * DAY; t += step * DAY) {
      ticks.push(new Date(t));
      if (t >= last) break;
    }
    return { ticks, monthly: false };
  }
  const start = new Date(lo);
  let y = start.getUTCFullYear();
  let m = start.getUTCMonth();
  const months = (new Date(hi).getUTCFullYear() - y) * 12 + new Date(hi).getUTCMonth() - m + 1;
  const step = [1, 2, 3, 4, 6, 12, 24, 60].find((s) => months / s <= most - 1) ?? 120;
  m -= m % step;
  const ticks: Date[] = [];
  for (;;) {
    const t = new Date(Date.UTC(y, m, 1));
    ticks.push(t);
    if (t.getTime() > hi) break;
    m += step;
    y += Math.floor(m / 12);
    m %= 12;
  }
  return { ticks, monthly: true };
}

import type { CellView } from './model.js';

export function workloadText(c: CellView): string {
  const parts: string[] = [];
  if (c.connections !== null) parts.push(`${c.connections} conn`);
  if (c.pipelineDepth !== null)
    parts.push(`P${c.pipelineDepth}${c.pipelineMode ? ` ${c.pipelineMode}` : ''}`);
  if (c.valueSizeMin !== null)
    parts.push(
      c.valueSizeMin === c.valueSizeMax
        ? bytes(c.valueSizeMin)
        : `${bytes(c.valueSizeMin)}–${bytes(c.valueSizeMax ?? 0)}`,
    );
  if (c.keyspaceSize !== null)
    parts.push(`${count(c.keyspaceSize)} keys${c.keyPattern ? ` ${c.keyPattern}` : ''}`);
  if (c.rateOpsPerSec !== null) parts.push(`open loop ${count(c.rateOpsPerSec)} ops/s`);
  return parts.join(' · ') || 'not published';
}

export function bytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / 1024 / 1024} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} B`;
}

export function count(n: number): string {
  if (n >= 1e6 && n % 1e5 === 0) return `${n / 1e6}M`;
  if (n >= 1e3 && n % 100 === 0) return `${n / 1e3}k`;
  return String(n);
}

/** ops/s with thousands separators: tables show exact medians, charts the rounded ones. */
export function ops(n: number | null): string {
  return n === null ? '—' : Math.round(n).toLocaleString('en-US');
}

/** Latency with its unit, never broken across lines ("1.12 / ms" read as two numbers). */
export function us(n: number | null | undefined): string {
  return n === null || n === undefined
    ? '—'
    : n >= 1000
      ? `${(n / 1000).toFixed(2)}\u00a0ms`
      : `${Math.round(n)}\u00a0µs`;
}

export function pct(n: number | null): string {
  return n === null ? '—' : `${(n * 100).toFixed(1)}%`;
}

export function date(iso: string | null): string {
  return iso ? iso.slice(0, 10) : '—';
}

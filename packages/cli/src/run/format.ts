import type { CellResult } from '@redis-benchdb/engine';

/** redis-benchmark's --csv header, exactly, so tools that read its CSV read ours. */
export const CSV_HEADER =
  '"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"';

const ms = (us: number) => (us / 1000).toFixed(3);

export function csvRow(label: string, r: CellResult): string {
  const l = r.latencyUs;
  const cols = [
    label.replace(/"/g, '""'),
    r.opsPerSec.toFixed(2),
    ms(l.meanUs),
    ms(l.minUs),
    ms(l.p50Us),
    ms(l.p95Us),
    ms(l.p99Us),
    ms(l.maxUs),
  ];
  return cols.map((c) => `"${c}"`).join(',');
}

/** One line per cell, as redis-benchmark -q prints it, with p99 and p99.9 added. */
export function textLine(label: string, r: CellResult, quiet: boolean): string {
  const l = r.latencyUs;
  let line = `${label}: ${r.opsPerSec.toFixed(2)} requests per second, p50=${ms(l.p50Us)} msec`;
  if (!quiet) line += `, p99=${ms(l.p99Us)} msec, p99.9=${ms(l.p999Us)} msec`;
  return line + flags(r);
}

/** What a reader must know before trusting the line, said in a few words. */
export function flags(r: CellResult): string {
  const out: string[] = [];
  if (r.incomplete) out.push(`INCOMPLETE: ${r.error ?? 'stopped early'}`);
  if (r.saturation.clientBound) out.push('client-bound: the client, not the server, was the limit');
  const errors = Object.entries(r.errors);
  if (errors.length > 0) out.push(`errors ${errors.map(([k, v]) => `${k}=${v}`).join(' ')}`);
  if (r.crossCheck.status === 'mismatch') {
    out.push(
      `commandstats mismatch: server counted ${r.crossCheck.observed}, client ${r.crossCheck.expected} (${r.crossCheck.note})`,
    );
  }
  if (r.hitRatio !== null && r.hitRatio < 1) out.push(`hit ratio ${(r.hitRatio * 100).toFixed(1)}%`);
  if (r.responseTimeUs) out.push(`from intended send p99=${ms(r.responseTimeUs.p99Us)} msec`);
  return out.length ? `  [${out.join('; ')}]` : '';
}

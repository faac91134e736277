import type { CellSummary } from '@redis-benchdb/engine';
import { type InterferenceFigures, interferenceWarnings } from '@redis-benchdb/probe';
import { isErrorDominated } from '@redis-benchdb/runner';

/** redis-benchmark's --csv header, exactly, so tools that read its CSV read ours. */
export const CSV_HEADER =
  '"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"';

const ms = (us: number) => (us / 1000).toFixed(3);

/**
 * One row per cell; rps is the median over trials (of successful replies only, when most were
 * errors), latencies come from the merged histogram.
 */
export function csvRow(c: CellSummary): string {
  const l = c.latencyUs;
  const cols = [
    c.label.replace(/"/g, '""'),
    (isErrorDominated(c) ? c.errorReplies!.successOpsPerSec : c.opsPerSec.median).toFixed(2),
    ms(l.meanUs),
    ms(l.minUs),
    ms(l.p50Us),
    ms(l.p95Us),
    ms(l.p99Us),
    ms(l.maxUs),
  ];
  return cols.map((x) => `"${x}"`).join(',');
}

/** One line per cell, as redis-benchmark -q prints it, with p99, p99.9 and the trials' spread added. */
export function textLine(c: CellSummary, quiet: boolean): string {
  const l = c.latencyUs;
  if (isErrorDominated(c)) {
    // Error replies per second are not the command's throughput: say what happened instead.
    const e = c.errorReplies!;
    return `${c.label}: ERRORS: ${e.count} of ${c.completed} replies (${(e.ratio * 100).toFixed(2)}%) were errors, e.g. "${e.example}"; only ${e.successOpsPerSec.toFixed(2)} successful requests per second${flags(c)}`;
  }
  let line = `${c.label}: ${c.opsPerSec.median.toFixed(2)} requests per second`;
  if (c.trialCount > 1 && !quiet) {
    const half = (c.opsPerSec.ci95High - c.opsPerSec.ci95Low) / 2;
    line += ` (±${((half / c.opsPerSec.median) * 100).toFixed(1)}% over ${c.trialCount} trials)`;
  }
  line += `, p50=${ms(l.p50Us)} msec`;
  if (!quiet) line += `, p99=${ms(l.p99Us)} msec, p99.9=${ms(l.p999Us)} msec`;
  return line + flags(c);
}

/** What a reader must know before trusting the line, said in a few words. */
export function flags(c: CellSummary & { interference?: InterferenceFigures | null }): string {
  const out: string[] = [];
  if (c.incomplete) out.push(`INCOMPLETE: ${c.error ?? 'stopped early'}`);
  if (c.saturation.clientBound) out.push('client-bound: the client, not the server, was the limit');
  if (c.unstable) out.push(`unstable: trials vary by ${((c.opsPerSec.cv ?? 0) * 100).toFixed(0)}% (CV)`);
  if (c.stall && c.incompleteReason !== 'reply-timeout')
    out.push(
      `stall: no reply for ${(c.stall.maxGapMs / 1000).toFixed(2)} s at ${c.stall.atSec.toFixed(1)} s`,
    );
  const errors = Object.entries(c.errors);
  if (errors.length > 0) {
    const e = c.errorReplies;
    const share =
      e && !isErrorDominated(c) ? ` (${(e.ratio * 100).toFixed(2)}% of replies, e.g. "${e.example}")` : '';
    out.push(`errors ${errors.map(([k, v]) => `${k}=${v}`).join(' ')}${share}`);
  }
  if (c.crossCheck.status === 'mismatch') {
    out.push(
      `commandstats mismatch: server counted ${c.crossCheck.observed}, client ${c.crossCheck.expected} (${c.crossCheck.note})`,
    );
  }
  if (c.redirects && c.redirects.moved + c.redirects.ask > 0)
    out.push(`cluster redirects followed: MOVED=${c.redirects.moved} ASK=${c.redirects.ask}`);
  if (c.hitRatio !== null && c.hitRatio < 1) out.push(`hit ratio ${(c.hitRatio * 100).toFixed(1)}%`);
  out.push(...interferenceFlags(c.label, c.interference));
  if (c.responseTimeUs) out.push(`from intended send p99=${ms(c.responseTimeUs.p99Us)} msec`);
  return out.length ? `  [${out.join('; ')}]` : '';
}

/** A few words per interference warning for the cell's terminal line. */
export function interferenceFlags(label: string, f: InterferenceFigures | null | undefined): string[] {
  if (!f) return [];
  return interferenceWarnings(label, f).map((w) =>
    w.code === 'BUSY_HOST'
      ? f.otherCpuFraction === null
        ? 'busy host? other work could not be measured'
        : `busy host: other processes used ${pct(f.otherCpuFraction)} of the CPUs`
      : `CPU steal ${pct(f.stealFraction)}`,
  );
}

function pct(x: number | null): string {
  return x === null ? '?' : `${Math.round(x * 100)}%`;
}

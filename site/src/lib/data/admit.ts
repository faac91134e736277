import { type AdmissionReason, admissionReasons, leftOutText } from '@redis-benchdb/result';

/**
 * The site's door to packages/result's admission rule: which of a cell's recorded flags it reads.
 * A cell's no-verdict flags (cell_measurements: its own BUSY_HOST, CPU_STEAL, CLIENT_BOUND, ERRORS and
 * its run's DRIFT) and the run-wide IO_THREADS_OVER_CPUS; incomplete and the commandstats cross-check
 * from the cell. A result's other cells' warnings do not count against this one.
 */
const RUN_WIDE = new Set(['IO_THREADS_OVER_CPUS']);

export interface AdmissionFacts {
  noVerdict: string | null;
  warningCodes: string | null;
  incomplete: 0 | 1 | null;
  crossCheck: string | null;
  clientBound?: 0 | 1 | null;
  /** The result's standing when the corroboration rule holds it back (db ranking/standing.ts). */
  held?: 'PROVISIONAL' | 'OUTLIER' | null;
}

/**
 * Why a cell is left out of a figure that ranks servers; empty when it counts. Its result's standing
 * (provisional, outlier: packages/result corroboration.ts) is read here too, so every summary that
 * asks this leaves such a result out and lists it with its reason.
 */
export function cellLeftOut(c: AdmissionFacts, ranksServers = true): AdmissionReason[] {
  const codes = [
    ...(c.noVerdict ? c.noVerdict.split(',') : []),
    ...(c.warningCodes ? c.warningCodes.split(',').filter((w) => RUN_WIDE.has(w)) : []),
    ...(c.clientBound === 1 ? ['CLIENT_BOUND'] : []),
    ...(c.held ? [c.held] : []),
  ];
  return admissionReasons({ codes, incomplete: c.incomplete === 1, crossCheck: c.crossCheck, ranksServers });
}

/**
 * Collects what a view left out, per result, for its "left out" line. Given the workload too, it
 * counts each workload apart (issue 44: "12 results" behind a GET figure sat beside "9 left out"
 * that mixed GET's exclusions with SET's).
 */
export class LeftOut {
  readonly byResult = new Map<string, AdmissionReason[]>();
  readonly byLabel = new Map<string, Map<string, AdmissionReason[]>>();
  add(resultId: string, reasons: readonly AdmissionReason[], label?: string): void {
    if (reasons.length === 0) return;
    const had = this.byResult.get(resultId) ?? [];
    this.byResult.set(resultId, [...new Set([...had, ...reasons])]);
    if (label === undefined) return;
    const mine = this.byLabel.get(label) ?? new Map<string, AdmissionReason[]>();
    mine.set(resultId, [...new Set([...(mine.get(resultId) ?? []), ...reasons])]);
    this.byLabel.set(label, mine);
  }
  get text(): string | null {
    if (this.byLabel.size < 2) return leftOutText(this.byResult);
    return [...this.byLabel]
      .map(([label, m]) => leftOutText(m)?.replace(' left out:', ` left out of ${label}:`))
      .filter(Boolean)
      .join('; ');
  }
  /** Result ids with their reasons, for a linked list. */
  list(): { id: string; reasons: AdmissionReason[] }[] {
    return [...this.byResult.entries()].map(([id, reasons]) => ({ id, reasons }));
  }
}

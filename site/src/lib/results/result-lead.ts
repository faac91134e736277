import {
  ADMISSION_REASON_TEXT,
  type AdmissionReason,
  type ResultV1,
  resultCellAdmission,
} from '@redis-benchdb/result';
import type { CellView, ResultView } from '../model/model.js';

/**
 * What a result page says first (issue 28): its headline figures with their intervals, and whether
 * the admission rule lets it be ranked and compared, with the reasons. The rule is packages/result's
 * (resultCellAdmission), read from the signed document as the CLI reads it, so the page and the
 * terminal give the same answer for the same result.
 */

/** The cells a page leads with when the result has them: baseline and pipelined GET and SET. */
export const LEAD_LABELS = ['GET', 'SET', 'GET P16', 'SET P16'] as const;
/** A result with none of them (an ad-hoc run, an import) leads with its first cells, this many. */
const FIRST_CELLS = 4;

export interface LeadCell {
  label: string;
  /** Why admission leaves it out of a ranking; empty: admitted. */
  reasons: AdmissionReason[];
}

export interface ResultLead {
  cells: LeadCell[];
  /** Of every cell of the result: how many the rule admits. */
  admitted: number;
  total: number;
  /** Each reason with the cells it leaves out, in the rule's order. */
  leftOut: { reason: AdmissionReason; text: string; cells: string[] }[];
  /** all: every cell may be ranked; some; none (then `why` says why, for a reason beyond the cells). */
  standing: 'all' | 'some' | 'none';
  why: string | null;
}

export function resultLead(r: ResultView): ResultLead {
  const reasons = cellReasons(r);
  const byLabel = new Map(r.cells.map((c) => [c.label, c]));
  const named = LEAD_LABELS.map((l) => byLabel.get(l)).filter((c): c is CellView => c !== undefined);
  const slo = r.cells.filter((c) => c.slo);
  const lead = [...(named.length > 0 ? named : r.cells.slice(0, FIRST_CELLS)), ...slo];
  const cells = [...new Set(lead)].map((c) => ({ label: c.label, reasons: reasons.get(c.label) ?? [] }));
  const why = notRanked(r);
  const admitted = why ? 0 : r.cells.filter((c) => (reasons.get(c.label) ?? []).length === 0).length;
  const leftOut = new Map<AdmissionReason, string[]>();
  if (!why)
    for (const c of r.cells)
      for (const reason of reasons.get(c.label) ?? [])
        leftOut.set(reason, [...(leftOut.get(reason) ?? []), c.label]);
  return {
    cells,
    admitted,
    total: r.cells.length,
    leftOut: [...leftOut.entries()].map(([reason, labels]) => ({
      reason,
      text: ADMISSION_REASON_TEXT[reason],
      cells: labels,
    })),
    standing: why || admitted === 0 ? 'none' : admitted === r.cells.length ? 'all' : 'some',
    why,
  };
}

/** A reason the whole result stays out of rankings, whatever its cells say; null when there is none. */
function notRanked(r: ResultView): string | null {
  if (r.kind === 'imported')
    return 'it is imported, and too much of its workload is unknown to match it exactly';
  if (r.signature.status === 'failed') return 'its signature failed at build';
  return null;
}

/** Each cell's admission reasons, from the signed document; none for an imported result. */
function cellReasons(r: ResultView): Map<string, AdmissionReason[]> {
  if (r.kind !== 'signed') return new Map();
  const envelope = JSON.parse(r.raw) as { payload?: string };
  const doc = JSON.parse(envelope.payload ?? r.raw) as ResultV1;
  return new Map(resultCellAdmission(doc).map((a) => [a.label, a.reasons]));
}

/** "drift (GET, SET)", "client-bound (12 cells)", "drift (every cell)": a reason with the cells it leaves out. */
export function leftOutLine(l: ResultLead['leftOut'][number], total?: number): string {
  const which =
    l.cells.length === total && total > 1
      ? 'every cell'
      : l.cells.length <= 3
        ? l.cells.join(', ')
        : `${l.cells.length} cells`;
  return `${l.text} (${which})`;
}

import { differingParams, type ParamDifference } from '../explore/explore.js';
import type { CompareInput } from './compare.js';

/**
 * When two results ran no workload in common, which of their cells come closest, and what differs:
 * "GET at 50 connections" against "GET at 1 connection" reads better than "no cells match". Pure, and
 * shipped to the browser with the compare page's script.
 */
export interface NearPair {
  /** A cell of the baseline (the first result). */
  base: { label: string };
  /** A cell of another result, and which result. */
  other: { id: string; label: string };
  /** The parameters that differ, fewest first across pairs. */
  differs: ParamDifference[];
}

/** Pairs shown per other result. */
export const NEAREST_PER_RESULT = 3;

/**
 * For each result after the first, its cells nearest to one of the baseline's: fewest differing
 * parameters first, a different test counting as more than any other difference (GET against SET is
 * no near miss). Cells without parameters (imported) have nothing to measure by and are left out.
 */
export function nearestWorkloads(
  inputs: readonly CompareInput[],
  perResult = NEAREST_PER_RESULT,
): NearPair[] {
  const [base, ...others] = inputs;
  if (!base) return [];
  const out: NearPair[] = [];
  for (const other of others) {
    const pairs: (NearPair & { score: number; order: number })[] = [];
    base.cells.forEach((a, i) => {
      if (!a.w) return;
      for (const b of other.cells) {
        if (!b.w) continue;
        const differs = differingParams(a.w, b.w);
        const score = differs.reduce((n, d) => n + (d.param === 'test' ? 100 : 1), 0);
        pairs.push({
          base: { label: a.label },
          other: { id: other.id, label: b.label },
          differs,
          score,
          order: i,
        });
      }
    });
    pairs.sort((x, y) => x.score - y.score || x.order - y.order);
    // One pair per baseline cell: three near misses of one cell say less than one each of three.
    const seen = new Set<string>();
    for (const { score: _s, order: _o, ...p } of pairs) {
      if (seen.has(p.base.label)) continue;
      seen.add(p.base.label);
      out.push(p);
      if (seen.size >= perResult) break;
    }
  }
  return out;
}

import { pairedRatio, pairedVerdict } from '@redis-benchdb/result';
import type { Comparison } from './compare.js';
import type { CellView, ResultView } from './model.js';

/** True when every member ran interleaved (runGroup.schedule): their trials pair up by round. */
export function isInterleaved(members: readonly ResultView[]): boolean {
  return members.length >= 2 && members.every((m) => m.runGroup?.interleaved === true);
}

/**
 * An interleaved group's comparison, round by round: trial i of every member ran in round i + 1,
 * back to back, so each round's ratio cancels what the machine did then. Each member's ratio to
 * the first becomes the geometric mean of its per-round ratios, and the verdict is "faster" or
 * "slower" only when that ratio's t-based 95% interval excludes 1 (pairedVerdict: the paired interval
 * is its own evidence of the between-run noise), and never on a cell with a no-verdict warning.
 */
export function pairComparison(comparison: Comparison, members: readonly ResultView[]): Comparison {
  const cellsByFp = members.map((m) => new Map(m.cells.map((c) => [c.workloadFingerprint, c])));
  return {
    ...comparison,
    cells: comparison.cells.map((cell) => {
      const base = cellsByFp[0]!.get(cell.fp);
      const pairs = members.map((_, i) => {
        const other = cellsByFp[i]!.get(cell.fp);
        // Mostly errors on either side (ERRORS): its ops/s are not the command's, so no ratio.
        return i === 0 || !base || !other || base.errors || other.errors ? null : roundRatio(base, other);
      });
      return {
        ...cell,
        ratios: cell.ratios.map((r, i) => (i === 0 ? r : (pairs[i]?.ratio ?? null))),
        verdicts: cell.verdicts.map((v, i) => {
          const other = cellsByFp[i]!.get(cell.fp);
          if (i === 0 || !base || !other) return v;
          return pairedVerdict(pairs[i] ?? null, base.noVerdict, other.noVerdict);
        }),
        paired: pairs.map((p) => (p ? { rounds: p.n, ci95Low: p.ci95Low, ci95High: p.ci95High } : null)),
      };
    }),
  };
}

/** The paired ratio of two cells of one interleaved group, trial i with trial i (null with no pair measured). */
export function roundRatio(base: Pick<CellView, 'trialOps'>, other: Pick<CellView, 'trialOps'>) {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < Math.min(base.trialOps.length, other.trialOps.length); i++) {
    // A trial cut short before it measured anything has nothing to pair.
    if (base.trialOps[i]! > 0 && other.trialOps[i]! > 0) {
      a.push(base.trialOps[i]!);
      b.push(other.trialOps[i]!);
    }
  }
  return a.length > 0 ? pairedRatio(a, b) : null;
}

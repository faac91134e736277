import {
  betweenRunNoise,
  median,
  NO_VERDICT_WARNINGS,
  type PairedEvidence,
  pairedRounds,
  type SpreadKind,
  spreadOf,
  spreadText,
  type VerdictCell,
} from '@redis-benchdb/result';
import { readableView } from '../data/data.js';

/** A cell as the finder reads it: which result, which workload, which run group, when, its flags. */
export interface GroupedCell {
  resultId: string;
  workloadFingerprint: string;
  runGroupId: string | null;
  /** When its result ran (startedAt, else receivedAt): the newest group wins a tie. */
  at: string;
  /** Its no-verdict warnings (verdict.ts noVerdictWarnings), as the database stores them. */
  flags: readonly string[];
}

/** A cell's trials' ops/s in round order, and whether its result ran interleaved; null when it has no such cell. */
export type TrialReader = (
  resultId: string,
  workloadFingerprint: string,
) => { trials: readonly number[]; interleaved: boolean } | null;

/** The reader of a build: the parsed, verified result (data.ts resultView). */
export const readTrials: TrialReader = (resultId, fp) => {
  // A stored row the site cannot prepare has no trials to read: no spread and no pairing from it.
  const v = readableView(resultId);
  if (!v) return null;
  const c = v.cells.find((x) => x.workloadFingerprint === fp);
  return c ? { trials: c.trialOps, interleaved: v.runGroup?.interleaved === true } : null;
};

/**
 * The paired evidence for `other` against `ref` (two server versions on one machine kind and
 * configuration, each a list of admitted cells of one workload): from the interleaved run group that
 * holds a cell of each, trial i against trial i (pairedRounds); of several such groups the one with
 * the most rounds, the newest on a tie. Null when no interleaved group holds both. The version rule
 * (version-verdicts.ts) and the explorer (explore-data.ts) both ask this, so the pair they show is the
 * same group's, and packages/result comparePair judges it the same way.
 */
export function groupEvidence(
  ref: readonly GroupedCell[],
  other: readonly GroupedCell[],
  read: TrialReader = readTrials,
): PairedEvidence | null {
  return everyGroupEvidence(ref, other, read)[0] ?? null;
}

/**
 * The paired evidence of every interleaved run group that holds both sides, the one groupEvidence
 * picks first (most rounds, then newest), then the others in the same order: a page that shows the
 * first says whether the others agree (issue 44: one pair read 1.08x on one page and 0.90x on another).
 */
export function everyGroupEvidence(
  ref: readonly GroupedCell[],
  other: readonly GroupedCell[],
  read: TrialReader = readTrials,
): PairedEvidence[] {
  const found: { e: PairedEvidence; at: string }[] = [];
  for (const r of ref) {
    if (!r.runGroupId || found.some((f) => f.e.groupId === r.runGroupId)) continue;
    // The id alone pairs: a stored group id is one signer's run (packages/db ingest/run-group.ts).
    const o = other.find(
      (c) => c.runGroupId === r.runGroupId && c.workloadFingerprint === r.workloadFingerprint,
    );
    if (!o) continue;
    const rc = read(r.resultId, r.workloadFingerprint);
    const oc = read(o.resultId, o.workloadFingerprint);
    if (!rc?.interleaved || !oc?.interleaved) continue;
    const p = pairedRounds(rc.trials, oc.trials);
    if (!p) continue;
    found.push({
      e: { ...p, groupId: r.runGroupId, baseWarnings: r.flags, otherWarnings: o.flags },
      at: r.at,
    });
  }
  return found.sort((a, b) => b.e.n - a.e.n || b.at.localeCompare(a.at)).map((f) => f.e);
}

/** A side's cell: the finder's fields and its median ops/s. */
export interface SideCell extends GroupedCell {
  opsMedian: number;
}

/**
 * One side of a comparison (a server version's admitted cells of one workload on one machine kind
 * and configuration) as the verdict rules read it: the median of its results' medians (one result:
 * its own), the spread of that median (one result: of its trials, computed from them; several: of
 * their medians; packages/result spread.ts), every flag any of its cells carries, and the between-run
 * noise its results show. Every view that sets a version against another reads a side through this.
 */
export function sideOf(
  cells: readonly SideCell[],
  read: TrialReader = readTrials,
): { cell: VerdictCell; kind: SpreadKind } {
  const medians = cells.map((c) => c.opsMedian);
  const one = cells.length === 1 ? cells[0]! : null;
  const trials = one ? (read(one.resultId, one.workloadFingerprint)?.trials ?? []) : [];
  const s = one ? (trials.length > 0 ? spreadOf(trials) : null) : spreadOf(medians);
  const flags = NO_VERDICT_WARNINGS.filter((w) => cells.some((c) => c.flags.includes(w)));
  return {
    cell: {
      median: one ? one.opsMedian : median(medians),
      low: s && s.kind !== 'single' ? s.low : null,
      high: s && s.kind !== 'single' ? s.high : null,
      spread: s ? spreadText(s, one ? 'trial' : 'result') : 'no trials',
      warnings: flags,
      noise: betweenRunNoise(medians),
    },
    kind: s?.kind ?? 'single',
  };
}

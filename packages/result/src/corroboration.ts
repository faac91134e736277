import { median } from './stats.js';

/**
 * Corroboration before influence (issue 39 item 2): when a signer's result may move a summary (a
 * headline, the rank of another result, a version page's reference, a version verdict, an explorer
 * bar). One pure rule, applied by every view through packages/db (standing.ts). The rule, as the
 * methodology page and docs/DEPLOY.md state it:
 *
 * Results are judged within one machine kind and configuration (identity.ts), by the median ops/s of
 * their admitted cells (admission.ts), workload by workload.
 *   1. A result signed by a project key is admitted: the project's own measurements are the anchor
 *      (packages/db reads "project key" as a key the operator named a signer for: the data keys).
 *   2. Any other result is *provisional* until the kind's admitted results vouch for it. On each
 *      workload it shares with the admitted results of other signers:
 *        - where those are MIN_RESULTS_FOR_SPREAD or more, its figure must lie within
 *          OUTLIER_MADS median absolute deviations of their median: |x − m| ≤ 3 · MAD, MAD being
 *          median(|xᵢ − m|) over those results, and never taken below MIN_MAD_SHARE of m (figures
 *          that agree to the last digit do not make every other run an outlier). Beyond it the
 *          result is an *outlier*;
 *        - where they are fewer, one of them must agree with it within the between-run noise of two
 *          single runs: |ln(x / y)| ≤ PAIR_BAND (±29%).
 *      It must share at least one workload with them, and pass on every shared one.
 *   3. On a kind no admitted result holds yet, two results of different signers that agree by the
 *      second test vouch for each other; from then on the kind has admitted results and rule 2 holds.
 *   4. Admission grows to a fixed point: each pass judges the results not yet admitted against the
 *      admitted set as the pass found it, until a pass admits none. The order results arrived in
 *      plays no part.
 * A result's own signer never vouches for it: two keys of one signer (key_signers) are one signer,
 * and a copy (copies.ts) is judged but never vouches.
 */

/** Beyond this many median absolute deviations from the kind's admitted median: an outlier. */
export const OUTLIER_MADS = 3;
/** At least this many admitted results of other signers on a workload before the spread test applies. */
export const MIN_RESULTS_FOR_SPREAD = 3;
/** The MAD is never taken below this share of the median: 1%, as noise.ts's MIN_BETWEEN_RUN_CV. */
export const MIN_MAD_SHARE = 0.01;
/**
 * Two single runs of one setup agree when their medians are within this, in natural-log units:
 * 1.96 · √2 · 9.2%, the median between-run CV the project measured on its quiet 2-vCPU VM (noise.ts
 * states where; the 18% default there is the worst cell, kept for verdicts, which must stay silent).
 * e^0.255 = 1.29: a figure 29% apart, or more, is not vouched for by one run.
 */
export const PAIR_BAND = 1.959963984540054 * Math.SQRT2 * 0.092;

/** What the rule reads of one signed result. */
export interface CorroborationInput {
  resultId: string;
  /** The key's signer (key_signers), else the key. */
  signer: string;
  /** Signed by a project key: one the operator named a signer for (the data keys): an anchor. */
  project: boolean;
  /** Machine kind and configuration, one string: results are judged only against their own. */
  kindKey: string;
  /** A copy of an earlier result of the same key: judged, never vouching. */
  copy: boolean;
  /** Median ops/s of each admitted cell, by workload fingerprint. */
  figures: ReadonlyMap<string, number>;
}

/** The spread test that failed: which workload, the figure, and the statistic it was held to. */
export interface OutlierDetail {
  workloadFingerprint: string;
  opsPerSec: number;
  median: number;
  mad: number;
  results: number;
}

export type Standing =
  | { status: 'admitted'; basis: 'project' | 'corroborated' }
  | { status: 'provisional'; why: 'no-shared-workload' | 'no-agreeing-result' }
  | { status: 'outlier'; outlier: OutlierDetail };

/** The reason a view's "left out" list gives: PROVISIONAL or OUTLIER (admission.ts). */
export function standingReason(s: Standing | undefined): 'PROVISIONAL' | 'OUTLIER' | null {
  if (!s || s.status === 'admitted') return null;
  return s.status === 'outlier' ? 'OUTLIER' : 'PROVISIONAL';
}

/** The standing of every result, by id. */
export function corroborate(results: readonly CorroborationInput[]): Map<string, Standing> {
  const byKind = new Map<string, CorroborationInput[]>();
  for (const r of results) byKind.set(r.kindKey, [...(byKind.get(r.kindKey) ?? []), r]);
  const out = new Map<string, Standing>();
  for (const kind of byKind.values()) for (const [id, s] of judgeKind(kind)) out.set(id, s);
  return out;
}

function judgeKind(results: readonly CorroborationInput[]): Map<string, Standing> {
  const standing = new Map<string, Standing>();
  const admitted: CorroborationInput[] = [];
  for (const r of results)
    if (r.project) {
      standing.set(r.resultId, { status: 'admitted', basis: 'project' });
      admitted.push(r);
    }
  // Rule 3: an unanchored kind starts from pairs of signers that agree.
  if (admitted.length === 0)
    for (const r of results)
      if (results.some((v) => !v.copy && v.signer !== r.signer && pairAgrees(r, v))) {
        standing.set(r.resultId, { status: 'admitted', basis: 'corroborated' });
        admitted.push(r);
      }
  for (;;) {
    const vouchers = admitted.filter((v) => !v.copy);
    const judged = results
      .filter((r) => standing.get(r.resultId)?.status !== 'admitted')
      .map((r) => [r, judge(r, vouchers)] as const);
    for (const [r, s] of judged) standing.set(r.resultId, s);
    const newly = judged.filter(([, s]) => s.status === 'admitted').map(([r]) => r);
    if (newly.length === 0) return standing;
    admitted.push(...newly);
  }
}

/** One result against the admitted results of other signers (rule 2). */
function judge(r: CorroborationInput, admitted: readonly CorroborationInput[]): Standing {
  const others = admitted.filter((v) => v.signer !== r.signer);
  let shared = 0;
  for (const [fp, x] of r.figures) {
    const ys = others.flatMap((v) => {
      const y = v.figures.get(fp);
      return y === undefined ? [] : [y];
    });
    if (ys.length === 0) continue;
    shared++;
    if (ys.length >= MIN_RESULTS_FOR_SPREAD) {
      const detail = spreadTest(fp, x, ys);
      if (detail) return { status: 'outlier', outlier: detail };
    } else if (!ys.some((y) => Math.abs(Math.log(x / y)) <= PAIR_BAND))
      return { status: 'provisional', why: 'no-agreeing-result' };
  }
  return shared === 0
    ? { status: 'provisional', why: 'no-shared-workload' }
    : { status: 'admitted', basis: 'corroborated' };
}

/** Null when x lies within OUTLIER_MADS MADs of the median of ys; else what it was held to. */
export function spreadTest(
  workloadFingerprint: string,
  x: number,
  ys: readonly number[],
): OutlierDetail | null {
  const m = median(ys);
  const mad = Math.max(median(ys.map((y) => Math.abs(y - m))), MIN_MAD_SHARE * m);
  if (Math.abs(x - m) <= OUTLIER_MADS * mad) return null;
  return { workloadFingerprint, opsPerSec: x, median: m, mad, results: ys.length };
}

/** Two results agree on every workload they share (at least one) within PAIR_BAND. */
function pairAgrees(a: CorroborationInput, b: CorroborationInput): boolean {
  let shared = 0;
  for (const [fp, x] of a.figures) {
    const y = b.figures.get(fp);
    if (y === undefined) continue;
    shared++;
    if (!(x > 0 && y > 0) || Math.abs(Math.log(x / y)) > PAIR_BAND) return false;
  }
  return shared > 0;
}

/** How a standing reads on a result's own page. */
export function standingText(s: Standing): string {
  if (s.status === 'admitted')
    return s.basis === 'project'
      ? "signed by one of the project's data keys: admitted"
      : "corroborated by another signer's results of the same machine kind and configuration: admitted";
  if (s.status === 'provisional')
    return s.why === 'no-shared-workload'
      ? "provisional: no other signer's admitted result of the same machine kind and configuration ran any of its workloads, so it moves no summary until one does"
      : "provisional: no other signer's admitted result of the same machine kind and configuration agrees with it within between-run noise (±29%), so it moves no summary until one does";
  const o = s.outlier;
  const mads = Math.abs(o.opsPerSec - o.median) / o.mad;
  return `outlier: ${Math.round(o.opsPerSec).toLocaleString('en-US')} ops/s is ${mads.toFixed(1)} median absolute deviations from the median of the ${o.results} admitted results of its machine kind and configuration (${Math.round(o.median).toLocaleString('en-US')} ops/s, MAD ${Math.round(o.mad).toLocaleString('en-US')}; more than ${OUTLIER_MADS} is an outlier), so it moves no summary until another signer's results corroborate it`;
}

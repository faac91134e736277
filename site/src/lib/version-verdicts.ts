import type { SiteCellRow } from '@redis-benchdb/db';
import {
  betweenRunNoise,
  flaggedVerdict,
  median,
  noiseBand,
  pairedVerdict,
  type Verdict,
} from '@redis-benchdb/result';
import { cellLeftOut, LeftOut } from './admit.js';
import { COMPARISON_LABELS, HEADLINE_LABELS, machineSlugOfKey, resultView, versionCells } from './data.js';
import { roundRatio } from './group-paired.js';
import { compareVersions } from './versions.js';

/**
 * The version rule: how the site sets one server version against another. Only within one machine
 * kind and one configuration (packages/result identity.ts), only on admitted cells (admit.ts):
 *   1. where an interleaved run group holds both versions, the figure is that group's paired ratio
 *      (trial i of one against trial i of the other, round by round) with its 95% interval, and the
 *      verdict is the group page's (pairedVerdict: faster or slower only when the interval excludes 1);
 *   2. otherwise the ratio of the two versions' medians (each the median of its results' medians),
 *      "faster" or "slower" only beyond that machine kind's between-run noise for the two (noiseBand);
 *   3. otherwise, no figure.
 * Each product is set against its oldest version on the kind (its reference); versions are listed in
 * version order, never sorted by a figure. No figure across machine kinds or configurations.
 */
export interface VersionFigure {
  label: string;
  basis: 'paired' | 'medians' | 'none';
  /** This version's figure over the reference's. */
  ratio: number | null;
  /** The paired 95% interval (basis paired only). */
  low: number | null;
  high: number | null;
  rounds: number | null;
  groupId: string | null;
  /** Results behind each side (basis medians). */
  results: [number, number] | null;
  verdict: Verdict;
}

export interface VersionRow {
  product: string;
  version: string;
  figures: VersionFigure[];
}

export interface ProductVersions {
  product: string;
  reference: string;
  rows: VersionRow[];
}

export interface KindSection {
  machineKey: string;
  machineLabel: string;
  machineSlug: string;
  configKey: string;
  configLabel: string;
  isDefault: boolean;
  products: ProductVersions[];
  /** Products with one admitted version here: listed, with nothing to set them against. */
  alone: { product: string; version: string }[];
  leftOut: LeftOut;
}

const none = (label: string, why: string): VersionFigure => ({
  label,
  basis: 'none',
  ratio: null,
  low: null,
  high: null,
  rounds: null,
  groupId: null,
  results: null,
  verdict: { outcome: 'no verdict', rule: 'no-interval', text: `no verdict: ${why}` },
});

const flags = (c: SiteCellRow) => (c.noVerdict ? c.noVerdict.split(',') : []);

/** A cell the rule may read: signed, measured, not a copy, of a known machine kind and configuration (admission aside). */
export function comparable(c: SiteCellRow): boolean {
  return c.kind === 'signed' && c.opsMedian !== null && c.copyOf === null && !!c.machineKey && !!c.configKey;
}

let built: KindSection[] | null = null;
/** Every machine kind and configuration with versions of one product to set side by side; default configuration first. */
export function versionSections(): KindSection[] {
  built ??= sections(versionCells());
  return built;
}

export function sections(all: readonly SiteCellRow[]): KindSection[] {
  const byKind = new Map<string, SiteCellRow[]>();
  for (const c of all) {
    if (!comparable(c)) continue;
    const k = `${c.machineKey}\u0000${c.configKey}`;
    byKind.set(k, [...(byKind.get(k) ?? []), c]);
  }
  const out: KindSection[] = [];
  for (const cells of byKind.values()) {
    const first = cells[0]!;
    const leftOut = new LeftOut();
    const admitted = cells.filter((c) => {
      const why = cellLeftOut(c);
      leftOut.add(c.resultId, why);
      return why.length === 0;
    });
    // The workloads this kind has admitted cells of, baseline first: a kind measured with the
    // compare profile only shows its columns, one with the baseline only shows GET and SET.
    const labels = [...HEADLINE_LABELS, ...COMPARISON_LABELS].filter((l) =>
      admitted.some((c) => c.label === l),
    );
    const products = [...new Set(admitted.map((c) => c.serverProduct ?? 'unknown'))].sort();
    const ps: ProductVersions[] = [];
    const alone: KindSection['alone'] = [];
    for (const product of products) {
      const mine = admitted.filter((c) => (c.serverProduct ?? 'unknown') === product && c.serverVersion);
      const versions = [...new Set(mine.map((c) => c.serverVersion!))].sort(compareVersions);
      if (versions.length === 1) alone.push({ product, version: versions[0]! });
      if (versions.length < 2) continue;
      const reference = versions[0]!;
      const rows = versions.slice(1).map((version) => ({
        product,
        version,
        figures: labels.map((label) =>
          figure(
            label,
            mine.filter((c) => c.serverVersion === reference && c.label === label),
            mine.filter((c) => c.serverVersion === version && c.label === label),
          ),
        ),
      }));
      ps.push({ product, reference, rows });
    }
    if (ps.length === 0 && alone.length === 0 && leftOut.byResult.size === 0) continue;
    out.push({
      machineKey: first.machineKey!,
      machineLabel: first.machineLabel ?? '?',
      machineSlug: machineSlugOfKey(first),
      configKey: first.configKey!,
      configLabel: first.configLabel ?? '?',
      isDefault: first.configDefault === 1,
      products: ps,
      alone,
      leftOut,
    });
  }
  return out.sort(
    (a, b) =>
      Number(b.isDefault) - Number(a.isDefault) ||
      a.machineLabel.localeCompare(b.machineLabel) ||
      a.configLabel.localeCompare(b.configLabel),
  );
}

/** One label's figure for `other` against `ref`, by the rule above. */
export function figure(
  label: string,
  ref: readonly SiteCellRow[],
  other: readonly SiteCellRow[],
): VersionFigure {
  if (ref.length === 0) return none(label, `no admitted ${label} result of the reference version`);
  if (other.length === 0) return none(label, `no admitted ${label} result of this version`);
  const paired = pairedFigure(label, ref, other);
  if (paired) return paired;
  const a = median(ref.map((c) => c.opsMedian!));
  const b = median(other.map((c) => c.opsMedian!));
  const ratio = b / a;
  const base = {
    label,
    basis: 'medians' as const,
    ratio,
    low: null,
    high: null,
    rounds: null,
    groupId: null,
    results: [ref.length, other.length] as [number, number],
  };
  const flagged = flaggedVerdict([...new Set(ref.flatMap(flags))], [...new Set(other.flatMap(flags))]);
  if (flagged) return { ...base, verdict: flagged };
  // The machine kind's between-run noise: the spread of each version's results' medians on it, or the stated default with fewer than three.
  const band = noiseBand(
    betweenRunNoise(ref.map((c) => c.opsMedian!)),
    betweenRunNoise(other.map((c) => c.opsMedian!)),
  );
  const pct = `${(Math.expm1(band) * 100).toFixed(1)}%`;
  const diff = `${ratio >= 1 ? '+' : '−'}${(Math.abs(ratio - 1) * 100).toFixed(1)}%`;
  if (Math.abs(Math.log(ratio)) <= band)
    return {
      ...base,
      verdict: {
        outcome: 'no verdict',
        rule: 'within-noise',
        text: `no verdict: ratio of medians ${diff}, within this machine kind's between-run noise ±${pct}`,
      },
    };
  const outcome = ratio > 1 ? 'faster' : 'slower';
  return {
    ...base,
    verdict: {
      outcome,
      rule: 'beyond-noise',
      text: `${outcome}: ratio of medians ${diff}, beyond this machine kind's between-run noise ±${pct}`,
    },
  };
}

/** The paired ratio of the interleaved group holding both with the most rounds (the newest on a tie), or null. */
function pairedFigure(
  label: string,
  ref: readonly SiteCellRow[],
  other: readonly SiteCellRow[],
): VersionFigure | null {
  let best: VersionFigure | null = null;
  let bestAt = '';
  for (const r of ref) {
    if (!r.runGroupId) continue;
    const o = other.find((c) => c.runGroupId === r.runGroupId);
    if (!o) continue;
    const rv = resultView(r.resultId);
    const ov = resultView(o.resultId);
    if (rv.runGroup?.interleaved !== true || ov.runGroup?.interleaved !== true) continue;
    const rc = rv.cells.find((c) => c.workloadFingerprint === r.workloadFingerprint && c.label === label);
    const oc = ov.cells.find((c) => c.workloadFingerprint === o.workloadFingerprint && c.label === label);
    if (!rc || !oc) continue;
    const p = roundRatio(rc, oc);
    if (!p) continue;
    const at = r.startedAt ?? r.receivedAt;
    if (best && (best.rounds! > p.n || (best.rounds === p.n && bestAt >= at))) continue;
    bestAt = at;
    best = {
      label,
      basis: 'paired',
      ratio: p.ratio,
      low: p.ci95Low,
      high: p.ci95High,
      rounds: p.n,
      groupId: r.runGroupId,
      results: null,
      verdict: pairedVerdict(p, flags(r), flags(o)),
    };
  }
  return best;
}

/** The sections that hold this version (for its page). */
export function sectionsOf(product: string | null, version: string | null): KindSection[] {
  return versionSections().filter(
    (s) =>
      s.products.some(
        (p) =>
          p.product === product && (p.reference === version || p.rows.some((r) => r.version === version)),
      ) || s.alone.some((a) => a.product === product && a.version === version),
  );
}

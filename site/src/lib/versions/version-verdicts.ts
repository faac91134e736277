import type { SiteCellRow } from '@redis-benchdb/db';
import { ADMISSION_REASON_TEXT, comparePair, pairedVerdict, type Verdict } from '@redis-benchdb/result';
import {
  everyGroupEvidence,
  readTrials,
  type SideCell,
  sideOf,
  type TrialReader,
} from '../compare/pair-evidence.js';
import { type AlsoPaired, unpairedText } from '../compare/paired-sources.js';
import { cellLeftOut, LeftOut } from '../data/admit.js';
import {
  COMPARISON_LABELS,
  HEADLINE_LABELS,
  machineSlugOfKey,
  readableView,
  versionCells,
} from '../data/data.js';
import { commonPinning } from '../model/pinning.js';
import { compareVersions } from './versions.js';

/**
 * The version rule: how the site sets one server version against another. Only within one machine
 * kind and one configuration (packages/result identity.ts), only on admitted cells (admit.ts):
 *   1. where an interleaved run group holds both versions, the figure is that group's paired ratio
 *      (trial i of one against trial i of the other, round by round) with its 95% interval, and the
 *      verdict is the group page's (pairedVerdict: faster or slower only when the interval excludes 1);
 *   2. otherwise the ratio of the two versions' medians (each the median of its results' medians),
 *      "faster" or "slower" only when the two sides' spreads are apart (one result: its trials'; several:
 *      their medians'; a 95% interval of the median from 6 values, else the range) and the ratio is
 *      beyond the between-run noise of the two (unpairedVerdict);
 *   3. otherwise, no figure.
 * Each product is set against its oldest version on the kind (its reference); versions are listed in
 * version order, never sorted by a figure. No figure across machine kinds or configurations. Rules 1
 * and 2 are packages/result comparePair, the one comparison the explorer, group and compare pages make.
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
  /** Basis medians: which groups ran both versions and why none paired them (paired-sources.ts unpairedText). */
  notPaired?: string | null;
  /**
   * The other interleaved groups that ran both versions (basis paired), most rounds first: the figure
   * is the first group's, and a reader sees whether these agree (issue 44, item 5).
   */
  alsoPaired: AlsoPaired[];
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
  /** How the server and client shared the machine, where its results say one thing (pinning.ts), else null. */
  pinning: string | null;
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
  alsoPaired: [],
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

export function sections(all: readonly SiteCellRow[], read: TrialReader = readTrials): KindSection[] {
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
      leftOut.add(c.resultId, why, c.label);
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
      const ofProduct = (c: SiteCellRow) => (c.serverProduct ?? 'unknown') === product && !!c.serverVersion;
      const mine = admitted.filter(ofProduct);
      const versions = [...new Set(mine.map((c) => c.serverVersion!))].sort(compareVersions);
      // A version measured here whose every cell was left out still gets its row, saying why (issue 44:
      // Redis 7.4.1 vanished from the Intel table without a word).
      // A result the corroboration rule holds back makes no row and gives no reason here: it is listed
      // in the kind's "left out" line, and a forgery must not change what these tables say (issue 39).
      const unadmitted = [
        ...new Set(
          cells
            .filter((c) => ofProduct(c) && (labels as readonly string[]).includes(c.label) && !held(c))
            .map((c) => c.serverVersion!),
        ),
      ].filter((v) => !versions.includes(v));
      if (versions.length === 1 && unadmitted.length === 0) alone.push({ product, version: versions[0]! });
      if (versions.length < 2 && !(versions.length === 1 && unadmitted.length > 0)) continue;
      const reference = versions[0]!;
      const why = (version: string, label: string) => {
        const reasons = [
          ...new Set(
            cells
              .filter((c) => ofProduct(c) && c.serverVersion === version && c.label === label && !held(c))
              .flatMap((c) => cellLeftOut(c)),
          ),
        ];
        return reasons.length > 0
          ? `left out: ${reasons.map((r) => ADMISSION_REASON_TEXT[r]).join(', ')}`
          : null;
      };
      const ofVersion = (v: string, label: string) =>
        mine.filter((c) => c.serverVersion === v && c.label === label);
      const refOf = (label: string) => ofVersion(reference, label);
      const rows = [...versions.slice(1), ...unadmitted].sort(compareVersions).map((version) => ({
        product,
        version,
        figures: labels.map((label) => {
          const f = figure(label, refOf(label), ofVersion(version, label), read);
          const reason = f.basis === 'none' ? why(version, label) : null;
          if (reason) return none(label, reason);
          if (f.basis !== 'medians') return f;
          const both = ranBoth(cells, label, [product, reference], [product, version]);
          return { ...f, notPaired: unpairedText(refOf(label), ofVersion(version, label), both) };
        }),
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
      pinning: commonPinning(
        [...new Set(cells.map((c) => c.resultId))].flatMap((id) => readableView(id)?.machine ?? []),
      ),
    });
  }
  return out.sort(
    (a, b) =>
      Number(b.isDefault) - Number(a.isDefault) ||
      a.machineLabel.localeCompare(b.machineLabel) ||
      a.configLabel.localeCompare(b.configLabel),
  );
}

/** The run groups that measured `label` on both servers, admitted or not. */
export function ranBoth(
  cells: readonly SiteCellRow[],
  label: string,
  a: readonly [string, string],
  b: readonly [string, string],
): string[] {
  const groupsOf = ([p, v]: readonly [string, string]) =>
    new Set(
      cells
        .filter((c) => c.label === label && c.serverProduct === p && c.serverVersion === v && c.runGroupId)
        .map((c) => c.runGroupId!),
    );
  const theirs = groupsOf(b);
  return [...groupsOf(a)].filter((g) => theirs.has(g)).sort();
}

/** One label's figure for `other` against `ref`, by the rule above (packages/result comparePair). */
export function figure(
  label: string,
  ref: readonly SiteCellRow[],
  other: readonly SiteCellRow[],
  read: TrialReader = readTrials,
): VersionFigure {
  if (ref.length === 0) return none(label, `no admitted ${label} result of the reference version`);
  if (other.length === 0) return none(label, `no admitted ${label} result of this version`);
  const a = ref.map(sideCell);
  const b = other.map(sideCell);
  const [first = null, ...rest] = everyGroupEvidence(a, b, read);
  const c = comparePair(sideOf(a, read).cell, sideOf(b, read).cell, first);
  if (!c) return none(label, 'the reference has no throughput');
  return {
    label,
    basis: c.basis === 'paired' ? 'paired' : 'medians',
    ratio: c.ratio,
    low: c.low,
    high: c.high,
    rounds: c.rounds,
    groupId: c.groupId,
    results: c.basis === 'paired' ? null : [ref.length, other.length],
    verdict: c.verdict,
    alsoPaired: rest.map((e) => ({
      groupId: e.groupId!,
      rounds: e.n,
      ratio: e.ratio,
      low: e.ci95Low,
      high: e.ci95High,
      verdict: pairedVerdict(e, e.baseWarnings ?? [], e.otherWarnings ?? []),
    })),
  };
}

/** A version cell as the one comparison reads a side (pair-evidence.ts). */
function sideCell(c: SiteCellRow): SideCell {
  return {
    resultId: c.resultId,
    workloadFingerprint: c.workloadFingerprint ?? '',
    runGroupId: c.runGroupId,
    at: c.startedAt ?? c.receivedAt,
    flags: flags(c),
    opsMedian: c.opsMedian!,
  };
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

/** Held back by the corroboration rule (provisional or an outlier): it moves no summary. */
function held(c: SiteCellRow): boolean {
  return cellLeftOut(c).some((r) => r === 'OUTLIER' || r === 'PROVISIONAL');
}

import { cellsByWorkload, commonWorkload, type SiteCellRow } from '@redis-benchdb/db';
import { median } from '@redis-benchdb/result';
import { MATRIX_LABELS, type Matrix, type MatrixEntry } from '../compare/matrix.js';
import { readTrials, type TrialReader } from '../compare/pair-evidence.js';
import { alsoPairedText, unpairedText } from '../compare/paired-sources.js';
import { cellLeftOut, LeftOut } from '../data/admit.js';
import { database, HEADLINE_SUITE, machineSlugOfKey, versionSlugOf } from '../data/data.js';
import { paths } from '../routes/routes.js';
import { safeStrings } from '../text/text.js';
import { comparable, figure, ranBoth, type VersionFigure } from './version-verdicts.js';
import { compareVersions } from './versions.js';
import { factsOf } from './versions-data.js';

/**
 * A version page's first answer (issue 28): on each machine kind and configuration that holds the
 * version, every other version measured there over it, in the group page's matrix form. Each
 * figure is the version rule's (version-verdicts.ts figure): the paired ratio of the interleaved
 * group holding both where there is one, else the ratio of medians within the kind's noise.
 */
export interface VersionMatrix {
  machineLabel: string;
  machineSlug: string;
  configLabel: string;
  isDefault: boolean;
  /** Column 0 is this version (the baseline); the others in product and version order. */
  matrix: Matrix;
  leftOut: LeftOut;
  /** Every result of this kind and configuration read here: the page says how they ran (pinning.ts). */
  resultIds: string[];
}

let cells: SiteCellRow[] | null = null;
/** The standard suite's cells of the matrix's workloads, read once per build. */
function matrixCells(): SiteCellRow[] {
  if (cells) return cells;
  const fps = MATRIX_LABELS.map((w) => commonWorkload(database(), HEADLINE_SUITE, w.label)).filter(
    (f): f is string => f !== null,
  );
  cells = cellsByWorkload(database(), fps).map((c) => safeStrings(c));
  return cells;
}

const name = (product: string, version: string) => `${product} ${version}`;

/** "redis 7.9.224 (8.0-m01)": a pre-release reports an internal number, so its archive's tag goes beside it. */
function withTag(
  product: string,
  version: string,
  cells: readonly SiteCellRow[],
  tagOf: (resultId: string) => string | null,
): string {
  const one = cells.find((c) => c.serverProduct === product && c.serverVersion === version);
  const tag = one ? tagOf(one.resultId) : null;
  return tag && tag !== version ? `${name(product, version)} (${tag})` : name(product, version);
}

export function versionMatrices(product: string | null, version: string | null): VersionMatrix[] {
  if (!product || !version) return [];
  return matricesOf(matrixCells(), product, version);
}

/** Which group a figure came from, and the line on the other groups or why none paired (paired-sources.ts). */
function sourceOf(
  f: VersionFigure,
  ref: readonly SiteCellRow[],
  theirs: readonly SiteCellRow[],
  both: readonly string[],
): { source?: NonNullable<Extract<MatrixEntry, { kind: 'ratio' }>['source']> } {
  const note = f.groupId ? alsoPairedText(f) : unpairedText(ref, theirs, both);
  if (!f.groupId && !note) return {};
  return { source: { groupId: f.groupId, rounds: f.rounds, note } };
}

/** The matrices for one version over these cells: default configuration first, then the fullest. */
export function matricesOf(
  all: readonly SiteCellRow[],
  product: string,
  version: string,
  tagOf: (resultId: string) => string | null = (id) => factsOf(id).tag,
  read: TrialReader = readTrials,
): VersionMatrix[] {
  const byKind = new Map<string, SiteCellRow[]>();
  for (const c of all) {
    if (!comparable(c) || !c.serverProduct || !c.serverVersion) continue;
    const k = `${c.machineKey}\u0000${c.configKey}`;
    byKind.set(k, [...(byKind.get(k) ?? []), c]);
  }
  const out: VersionMatrix[] = [];
  for (const kindCells of byKind.values()) {
    if (!kindCells.some((c) => c.serverProduct === product && c.serverVersion === version)) continue;
    const leftOut = new LeftOut();
    const admitted = kindCells.filter((c) => {
      const why = cellLeftOut(c);
      leftOut.add(c.resultId, why, c.label);
      return why.length === 0;
    });
    const mine = admitted.filter((c) => c.serverProduct === product && c.serverVersion === version);
    const others = [
      ...new Map(
        admitted
          .filter((c) => !(c.serverProduct === product && c.serverVersion === version))
          .map((c) => [
            name(c.serverProduct!, c.serverVersion!),
            [c.serverProduct!, c.serverVersion!] as const,
          ]),
      ).values(),
    ].sort(([pa, va], [pb, vb]) => pa.localeCompare(pb) || compareVersions(va, vb));
    const columns = [[product, version] as const, ...others];
    const rows = MATRIX_LABELS.filter((w) => admitted.some((c) => c.label === w.label)).map(
      ({ label, note }) => {
        const ref = mine.filter((c) => c.label === label);
        const entries: MatrixEntry[] = columns.map(([p, v], i) => {
          if (i === 0)
            return ref.length > 0
              ? { kind: 'baseline', ops: median(ref.map((c) => c.opsMedian!)) }
              : { kind: 'none', why: `no admitted ${label} result of ${name(product, version)} here` };
          const theirs = admitted.filter(
            (c) => c.serverProduct === p && c.serverVersion === v && c.label === label,
          );
          const f = figure(label, ref, theirs, read);
          if (f.basis === 'none' || f.ratio === null) return { kind: 'none', why: f.verdict.text };
          return {
            kind: 'ratio',
            ratio: f.ratio,
            low: f.low,
            high: f.high,
            basis:
              f.basis === 'paired'
                ? `paired, ${f.rounds} round${f.rounds === 1 ? '' : 's'} of run group ${f.groupId!.slice(0, 12)}`
                : `ratio of medians of ${f.results![1]} and ${f.results![0]} results, not run together`,
            instead: f.basis === 'paired' ? 'one round' : 'medians',
            verdict: f.verdict,
            flags: [
              ...new Set([...ref, ...theirs].flatMap((c) => (c.noVerdict ? c.noVerdict.split(',') : []))),
            ],
            href: f.groupId ? paths.group(f.groupId) : null,
            ...sourceOf(f, ref, theirs, ranBoth(kindCells, label, [product, version], [p, v])),
          };
        });
        return { label, note, entries };
      },
    );
    const first = kindCells[0]!;
    out.push({
      machineLabel: first.machineLabel ?? '?',
      machineSlug: machineSlugOfKey(first),
      configLabel: first.configLabel ?? '?',
      isDefault: first.configDefault === 1,
      matrix: {
        baseline: 0,
        columns: columns.map(([p, v]) => ({
          name: withTag(p, v, kindCells, tagOf),
          href: paths.version(versionSlugOf({ serverProduct: p, serverVersion: v })),
          notes: [],
        })),
        rows,
      },
      leftOut,
      resultIds: [...new Set(kindCells.map((c) => c.resultId))],
    });
  }
  // The default configuration first, then the kinds with the most figures: the first screen shows the fullest answer.
  const figures = (v: VersionMatrix) =>
    v.matrix.rows.flatMap((r) => r.entries).filter((e) => e.kind === 'ratio').length;
  return out.sort(
    (a, b) =>
      Number(b.isDefault) - Number(a.isDefault) ||
      figures(b) - figures(a) ||
      a.machineLabel.localeCompare(b.machineLabel) ||
      a.configLabel.localeCompare(b.configLabel),
  );
}

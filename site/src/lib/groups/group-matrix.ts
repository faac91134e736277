import { compareResults, toCompareInput } from '../compare/compare.js';
import { MATRIX_LABELS, type Matrix, type MatrixEntry } from '../compare/matrix.js';
import { machineSlugOfKey } from '../data/data.js';
import { noiseOf } from '../data/noise.js';
import type { ResultView } from '../model/model.js';
import { commonPinning } from '../model/pinning.js';
import { paths } from '../routes/routes.js';
import { shortText } from '../text/text.js';
import { groupCaveats, memberName } from './group.js';

/** What a group page says first: on what machine kind and configuration, then one matrix per baseline. */
export interface GroupHead {
  /** The machine kind's label (identity.ts), one per group: its members ran on one machine. */
  machine: { label: string; href: string | null } | null;
  /** What every member's configuration shares, and what sets each apart (empty when they all share one). */
  config: { common: string; isDefault: boolean; differs: string[] } | null;
  /** Baseline i: every column over member i. In member order. */
  matrices: Matrix[];
  /** How the server and the client shared the machine (pinning.ts), where the members agree; else null. */
  pinning: string | null;
}

/** A column's name: "valkey 8.0.1 · io-threads 2", the server then the setting the run gave it. */
export function columnName(r: ResultView): string {
  const server = `${r.server.product ?? 'unknown server'} ${r.server.version ?? ''}`.trim();
  const label = r.runGroup?.label ?? '';
  // The runner labels a member "<binary> <version> (<tag>) · <setting>": the server comes from the
  // result's facts, the tag and the setting from the label.
  const [first = '', ...settings] = label.split(' · ');
  const tag = /\(([^)]+)\)\s*$/.exec(first)?.[1];
  return shortText([`${server}${tag ? ` (${tag})` : ''}`, ...settings].join(' · '), 80).text;
}

export function groupHead(members: readonly ResultView[]): GroupHead {
  const kinds = [...new Set(members.map((m) => m.machineKind?.label ?? null))];
  const first = members[0];
  const machine =
    first?.machineKind && kinds.length === 1
      ? {
          label: first.machineKind.label,
          href: paths.machine(
            machineSlugOfKey({
              machineKey: first.machineKind.key,
              machineLabel: first.machineKind.label,
              cpuModel: first.machine.cpuModel,
              virtualizationKind: first.machine.virtualization,
            }),
          ),
        }
      : null;
  // Each column names the run-wide warnings that set its member apart, where the figures are read.
  const caveats = groupCaveats(members);
  const notes = members.map((m) =>
    caveats.filter((c) => c.members.includes(memberName(m))).map((c) => c.code),
  );
  const matrices = members.map((_, i) => {
    const m = matrixAgainst(members, i);
    return { ...m, columns: m.columns.map((c, k) => ({ ...c, notes: notes[k]! })) };
  });
  return {
    machine,
    config: configOf(members),
    matrices,
    pinning: commonPinning(members.map((m) => m.machine)),
  };
}

/** The configuration parts every member shares, and each distinct remainder ("io-threads 2 + reads"). */
function configOf(members: readonly ResultView[]): GroupHead['config'] {
  const labels = members.map((m) => m.configuration?.label);
  if (labels.some((l) => l === undefined)) return null;
  const parts = (labels as string[]).map((l) => l.split(' · '));
  const common = parts[0]!.filter((p) => parts.every((ps) => ps.includes(p)));
  const differs = [
    ...new Set(parts.map((ps) => ps.filter((p) => !common.includes(p)).join(' · ')).filter(Boolean)),
  ];
  return {
    common: common.join(' · '),
    isDefault: differs.length === 0 && members[0]!.configuration!.isDefault,
    differs,
  };
}

/**
 * Every member over member `b`, on the workloads that matter. The figures are the group page's own:
 * compareResults with `b` first, paired round by round when the group interleaved (comparePair),
 * so each entry's ratio, interval and verdict are what the cell table below says with that baseline.
 */
export function matrixAgainst(members: readonly ResultView[], b: number): Matrix {
  const order = [b, ...members.keys()].filter((i, k) => k === 0 || i !== b);
  const ordered = order.map((i) => members[i]!);
  const comparison = compareResults(ordered.map((m) => ({ ...toCompareInput(m, noiseOf(m)), name: m.id })));
  const base = members[b]!;
  const rows = workloadsOf(members).map(({ label, note }) => {
    const cell = comparison.cells.find((c) => c.label === label);
    const baseCell = cell && base.cells.find((c) => c.workloadFingerprint === cell.fp);
    const entries: MatrixEntry[] = members.map((m, i) => {
      if (!cell || !baseCell) return { kind: 'none', why: `the baseline has no ${label} cell` };
      const k = order.indexOf(i);
      if (k === 0) return { kind: 'baseline', ops: baseCell.opsMedian };
      const ratio = cell.ratios[k];
      const verdict = cell.verdicts[k];
      if (ratio === null || ratio === undefined || !verdict)
        return {
          kind: 'none',
          why: m.cells.some((c) => c.label === label)
            ? 'mostly errors on either side: no ratio'
            : `no ${label} cell`,
        };
      const paired = cell.paired?.[k] ?? null;
      const other = m.cells.find((c) => c.workloadFingerprint === cell.fp);
      const flags = [...new Set([...baseCell.noVerdict, ...(other?.noVerdict ?? [])])];
      return {
        kind: 'ratio',
        ratio,
        low: paired?.ci95Low ?? null,
        high: paired?.ci95High ?? null,
        basis: paired
          ? `paired, ${paired.rounds} round${paired.rounds === 1 ? '' : 's'}`
          : 'ratio of medians, not interleaved',
        instead: paired ? 'one round' : 'not interleaved',
        verdict,
        flags,
        href: null,
      };
    });
    return { label, note, entries };
  });
  return {
    baseline: b,
    columns: members.map((m) => ({ name: columnName(m), href: paths.result(m.id), notes: [] })),
    rows,
  };
}

/** MATRIX_LABELS that two members or more have, then every SLO cell any member has, in its order. */
function workloadsOf(members: readonly ResultView[]): { label: string; note: string }[] {
  const count = (label: string) => members.filter((m) => m.cells.some((c) => c.label === label)).length;
  const slo = new Map<string, string>();
  for (const m of members)
    for (const c of m.cells)
      if (c.slo && !slo.has(c.label)) slo.set(c.label, `max ops/s at ${c.slo.objective}`);
  return [
    ...MATRIX_LABELS.filter((w) => count(w.label) >= 2),
    ...[...slo].filter(([l]) => count(l) >= 2).map(([label, note]) => ({ label, note })),
  ];
}

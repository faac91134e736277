import type { ResultView } from './model.js';

/**
 * Comparison, as pure functions over a small JSON shape: the build renders group pages with it, and
 * the compare page's script runs the same code in the browser on /results/<id>/compare.json.
 * Keep this file free of Node and of heavy imports: it is shipped to the browser.
 */
export interface CompareInput {
  id: string;
  /** How the result is named in a comparison: machine, server, date. */
  name: string;
  kind: 'signed' | 'imported';
  /** Environment and workload facts that decide what may be compared: see COMPARED_FIELDS. */
  fields: Record<string, string | null>;
  cells: {
    fp: string;
    label: string;
    median: number;
    lo: number | null;
    hi: number | null;
    unstable: boolean;
    /** Most replies were errors (warning ERRORS): its ops/s are not the command's, so it gets no verdict. */
    errors?: boolean;
  }[];
}

export const COMPARED_FIELDS: Record<string, string> = {
  cpuModel: 'CPU model',
  cores: 'CPU cores',
  virtualization: 'VM or bare metal',
  hypervisor: 'hypervisor',
  os: 'OS',
  thp: 'transparent huge pages',
  product: 'server',
  version: 'server version',
  allocator: 'allocator',
  ioThreads: 'io-threads',
  persistence: 'persistence',
  link: 'link',
  suite: 'suite and profile',
};

export function toCompareInput(r: ResultView): CompareInput {
  const s = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v));
  return {
    id: r.id,
    name: resultName(r),
    kind: r.kind,
    fields: {
      cpuModel: s(r.machine.cpuModel),
      cores: s(r.machine.cores),
      virtualization: s(r.machine.virtualization),
      hypervisor: s(r.machine.hypervisor),
      os: s(r.machine.os),
      thp: s(r.machine.thp),
      product: s(r.server.product),
      version: s(r.server.version),
      allocator: s(r.server.allocator),
      ioThreads: s(r.server.ioThreads),
      persistence: s(r.server.persistence),
      link: s(r.link.kind),
      suite: r.suite ? `${r.suite.id} ${r.suite.profile ?? ''}`.trim() : null,
    },
    cells: r.cells
      .filter((c) => c.workloadFingerprint !== null)
      .map((c) => ({
        fp: c.workloadFingerprint!,
        label: c.label,
        median: c.opsMedian,
        lo: c.opsCi95Low,
        hi: c.opsCi95High,
        unstable: c.unstable,
        ...(c.errors ? { errors: true } : {}),
      })),
  };
}

/** "redis 7.0.15 on Intel Xeon … (vm)": short, and made only of what the result says. */
export function resultName(r: ResultView): string {
  const server = [r.server.product ?? 'unknown server', r.server.version].filter(Boolean).join(' ');
  const machine = r.machine.cpuModel ?? 'unknown CPU';
  return `${server} on ${machine}${r.machine.virtualization ? ` (${r.machine.virtualization})` : ''}`;
}

export type Verdict = 'faster' | 'slower' | 'within noise' | 'unknown' | 'mostly errors';

export interface ComparedCell {
  fp: string;
  label: string;
  /** One entry per result, in input order; null where that result lacks the cell. */
  values: ({ median: number; lo: number | null; hi: number | null; unstable: boolean } | null)[];
  /** Each result's median over the first result's; null where either is missing. */
  ratios: (number | null)[];
  /** Against the first result: is the difference beyond the trials' noise? */
  verdicts: Verdict[];
  /**
   * An interleaved run group only (site/src/lib/group-paired.ts): ratios are then the geometric
   * means of per-round ratios, with this 95% interval over this many rounds.
   */
  paired?: ({ rounds: number; ci95Low: number | null; ci95High: number | null } | null)[];
}

export interface Comparison {
  results: { id: string; name: string; kind: 'signed' | 'imported' }[];
  /** Cells with the same workload fingerprint in the first result and at least one other. */
  cells: ComparedCell[];
  /** Fields whose values differ between the results: what the reader must keep in mind. */
  differing: { field: string; label: string; values: (string | null)[] }[];
}

/**
 * Cell by cell, against the first result. Only equal workload fingerprints are compared. A
 * difference counts as beyond noise when the two 95% intervals of the median do not overlap: a
 * conservative test (non-overlap implies significance at well under 5%), chosen because readers
 * can check it by eye on the charts. Without intervals (one trial, imported) the verdict is unknown.
 * A cell whose replies were mostly errors (warning ERRORS) gets neither a ratio nor a verdict.
 */
export function compareResults(inputs: readonly CompareInput[]): Comparison {
  if (inputs.length < 2) throw new Error(`a comparison needs two results or more, got ${inputs.length}`);
  const [base] = inputs as [CompareInput, ...CompareInput[]];
  const byFp = inputs.map((r) => new Map(r.cells.map((c) => [c.fp, c])));
  const cells: ComparedCell[] = [];
  for (const c of base.cells) {
    const values = byFp.map((m) => m.get(c.fp) ?? null);
    if (values.slice(1).every((v) => v === null)) continue;
    const b = values[0]!;
    cells.push({
      fp: c.fp,
      label: c.label,
      values: values.map((v) => (v ? { median: v.median, lo: v.lo, hi: v.hi, unstable: v.unstable } : null)),
      ratios: values.map((v) => (v && !v.errors && !b.errors && b.median > 0 ? v.median / b.median : null)),
      verdicts: values.map((v, i) =>
        v?.errors || (i > 0 && v && b.errors) ? 'mostly errors' : i === 0 || !v ? 'unknown' : verdict(b, v),
      ),
    });
  }
  const differing = Object.entries(COMPARED_FIELDS)
    .map(([field, label]) => ({ field, label, values: inputs.map((r) => r.fields[field] ?? null) }))
    .filter((d) => new Set(d.values).size > 1);
  return { results: inputs.map((r) => ({ id: r.id, name: r.name, kind: r.kind })), cells, differing };
}

function verdict(
  base: { median: number; lo: number | null; hi: number | null },
  other: { median: number; lo: number | null; hi: number | null },
): Verdict {
  if (base.lo === null || base.hi === null || other.lo === null || other.hi === null) return 'unknown';
  if (base.lo === base.hi && other.lo === other.hi) return 'unknown'; // single trials: no interval to speak of
  if (other.lo > base.hi) return 'faster';
  if (other.hi < base.lo) return 'slower';
  return 'within noise';
}

/** "1.23×", "0.87×". */
export function formatRatio(r: number | null): string {
  return r === null ? '—' : `${r.toFixed(2)}×`;
}

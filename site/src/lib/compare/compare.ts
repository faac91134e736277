import {
  type BetweenRunNoise,
  betweenRunNoise,
  comparePair,
  intervalDecimals,
  type PairedEvidence,
  pairedRounds,
  unpairedVerdict,
  type Verdict,
  type VerdictCell,
} from '@redis-benchdb/result/verdict';
import type { ResultView } from '../model/model.js';
import type { WorkloadParams } from '../model/workload-params.js';

/**
 * Comparison, as pure functions over a small JSON shape: the build renders group pages with it, and
 * the compare page's script runs the same code in the browser on /results/<id>/compare.json.
 * Keep this file free of Node and of heavy imports: it is shipped to the browser (the verdict rules
 * come from packages/result's "./verdict" export, which is small and pure for that reason).
 */
export interface CompareInput {
  id: string;
  /** How the result is named in a comparison: machine, server, date. */
  name: string;
  kind: 'signed' | 'imported';
  /**
   * Its run group, where it has one: two results of one interleaved group are compared round by round
   * (comparePair's paired rule), each cell's `trials` paired by index.
   */
  group?: { id: string; interleaved: boolean } | null;
  /** Environment and workload facts that decide what may be compared: see COMPARED_FIELDS. */
  fields: Record<string, string | null>;
  cells: {
    fp: string;
    label: string;
    median: number;
    /** The trials' spread (packages/result spread.ts): a 95% interval of the median from 6 trials, else their range. */
    lo: number | null;
    hi: number | null;
    /** What lo–hi is: "range of 3 trials". Absent (an older compare.json): "spread of the trials". */
    spread?: string;
    /** Each trial's ops/s, in round order: only for a member of an interleaved group, to pair by round. */
    trials?: number[];
    unstable: boolean;
    /** Most replies were errors (warning ERRORS): its ops/s are not the command's, so it gets no ratio. */
    errors?: boolean;
    /** The warnings that keep it from a verdict (verdict.ts noVerdictWarnings); absent: none. */
    warnings?: string[];
    /** Its environment's between-run noise for this workload, as of the build; absent: the default. */
    noise?: BetweenRunNoise;
    /** The workload's parameters: when no cell matches, nearest.ts says which come closest and how they differ. */
    w?: WorkloadParams;
  }[];
}

export const COMPARED_FIELDS: Record<string, string> = {
  machineKind: 'machine kind (CPU, caches, CPUs, virtualization)',
  configuration: 'configuration',
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

/**
 * What a comparison needs of a result. `noise` gives its environment's between-run noise for a
 * workload fingerprint (site/src/lib/data/noise.ts reads the database at build time); without it, the
 * default applies.
 */
export function toCompareInput(
  r: ResultView,
  noise: (workloadFingerprint: string) => BetweenRunNoise = () => betweenRunNoise([]),
): CompareInput {
  const s = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v));
  return {
    id: r.id,
    name: resultName(r),
    kind: r.kind,
    group: r.runGroup ? { id: r.runGroup.id, interleaved: r.runGroup.interleaved } : null,
    fields: {
      machineKind: s(r.machineKind?.label),
      configuration: s(r.configuration?.label),
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
        lo: c.opsLow,
        hi: c.opsHigh,
        spread: c.opsSpread,
        ...(r.runGroup?.interleaved ? { trials: c.trialOps } : {}),
        unstable: c.unstable,
        ...(c.errors ? { errors: true } : {}),
        ...(c.noVerdict.length > 0 ? { warnings: c.noVerdict } : {}),
        noise: noise(c.workloadFingerprint!),
        ...(c.params ? { w: c.params } : {}),
      })),
  };
}

/** "redis 7.0.15 on Intel Xeon … (vm)": short, and made only of what the result says. */
export function resultName(r: ResultView): string {
  const server = [r.server.product ?? 'unknown server', r.server.version].filter(Boolean).join(' ');
  const machine = r.machine.cpuModel ?? 'unknown CPU';
  return `${server} on ${machine}${r.machine.virtualization ? ` (${r.machine.virtualization})` : ''}`;
}

export type { Verdict };

export interface ComparedCell {
  fp: string;
  label: string;
  /** One entry per result, in input order; null where that result lacks the cell. */
  values: ({ median: number; lo: number | null; hi: number | null; unstable: boolean } | null)[];
  /** Each result's median over the first result's; null where either is missing or mostly errors. */
  ratios: (number | null)[];
  /** Against the first result, with the rule that decided (verdict.ts); null for the first and where missing. */
  verdicts: (Verdict | null)[];
  /**
   * Where two results ran in one interleaved run group: their ratio is then the geometric mean of the
   * per-round ratios, with this 95% interval over this many rounds (null for other pairs).
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

type InputCell = CompareInput['cells'][number];

/**
 * Cell by cell, against the first result. Only equal workload fingerprints are compared. Each pair is
 * packages/result's one comparison (comparePair): two members of one interleaved run group by their
 * paired ratio and its 95% interval; any other two by the ratio of medians, "faster" or "slower" only
 * when the two trials' spreads are apart AND the difference is beyond the between-run noise of the
 * two environments. Never a verdict on a cell with a no-verdict warning; each says which rule decided.
 * A cell whose replies were mostly errors (warning ERRORS) gets no ratio either.
 */
export function compareResults(inputs: readonly CompareInput[]): Comparison {
  if (inputs.length < 2) throw new Error(`a comparison needs two results or more, got ${inputs.length}`);
  const [base] = inputs as [CompareInput, ...CompareInput[]];
  // Across machine kinds or configurations there is no verdict: the ratio measures the machine (or
  // the settings) as much as the server, so it is shown and marked, never called faster or slower.
  const apart = inputs.map((r) => acrossKinds(base, r));
  const byFp = inputs.map((r) => new Map(r.cells.map((c) => [c.fp, c])));
  const cells: ComparedCell[] = [];
  for (const c of base.cells) {
    const values = byFp.map((m) => m.get(c.fp) ?? null);
    if (values.slice(1).every((v) => v === null)) continue;
    const b = values[0]!;
    // The one comparison (packages/result comparePair): paired where both ran in one interleaved group.
    const figures = values.map((v, i) =>
      i === 0 || !v || v.errors || b.errors
        ? null
        : comparePair(verdictCell(b), verdictCell(v), pairOf(base, inputs[i]!, b, v)),
    );
    const paired = figures.map((f) =>
      f?.basis === 'paired' ? { rounds: f.rounds!, ci95Low: f.low, ci95High: f.high } : null,
    );
    cells.push({
      fp: c.fp,
      label: c.label,
      values: values.map((v) => (v ? { median: v.median, lo: v.lo, hi: v.hi, unstable: v.unstable } : null)),
      ratios: values.map((v, i) =>
        i === 0 ? (v && !v.errors && v.median > 0 ? 1 : null) : (figures[i]?.ratio ?? null),
      ),
      // A group's paired evidence holds across configurations too (a run group that varies io-threads
      // ran its members on one machine, round by round); any other pair across kinds gets no verdict.
      verdicts: values.map((v, i) =>
        i === 0 || !v
          ? null
          : figures[i]?.basis === 'paired'
            ? figures[i]!.verdict
            : (apart[i] ?? figures[i]?.verdict ?? unpairedVerdict(verdictCell(b), verdictCell(v))),
      ),
      ...(paired.some(Boolean) ? { paired } : {}),
    });
  }
  const differing = Object.entries(COMPARED_FIELDS)
    .map(([field, label]) => ({ field, label, values: inputs.map((r) => r.fields[field] ?? null) }))
    .filter((d) => new Set(d.values).size > 1);
  return { results: inputs.map((r) => ({ id: r.id, name: r.name, kind: r.kind })), cells, differing };
}

/** The round-by-round evidence of two cells whose results ran in one interleaved group, or null. */
function pairOf(a: CompareInput, b: CompareInput, x: InputCell, y: InputCell): PairedEvidence | null {
  if (!a.group?.interleaved || !b.group?.interleaved || a.group.id !== b.group.id) return null;
  if (!x.trials || !y.trials) return null;
  const p = pairedRounds(x.trials, y.trials);
  return p ? { ...p, groupId: a.group.id } : null;
}

/** The no-verdict of two results on different machine kinds or configurations, or null when they share both. */
export function acrossKinds(base: CompareInput, other: CompareInput): Verdict | null {
  const f = (r: CompareInput, k: string) => r.fields[k] ?? null;
  const machine = f(base, 'machineKind') !== f(other, 'machineKind') || f(base, 'machineKind') === null;
  const config = f(base, 'configuration') !== f(other, 'configuration');
  if (!machine && !config) return null;
  const version = f(base, 'product') !== f(other, 'product') || f(base, 'version') !== f(other, 'version');
  const what = [machine && 'machine', config && 'configuration', version && 'version'].filter(
    Boolean,
  ) as string[];
  const said =
    what.length === 1 ? `${what[0]} differs` : `${what.slice(0, -1).join(', ')} and ${what.at(-1)} differ`;
  return { outcome: 'no verdict', rule: 'different-kind', text: `no verdict: ${said}` };
}

/**
 * A compare.json cell as the verdict rules read it. Its `warnings` say everything; a cell without
 * them (written by hand, or before they existed) still says whether it was unstable or mostly errors.
 */
export function verdictCell(c: InputCell): VerdictCell {
  const warnings = c.warnings ?? [...(c.unstable ? ['UNSTABLE'] : []), ...(c.errors ? ['ERRORS'] : [])];
  const noise = c.noise ?? betweenRunNoise([]);
  return {
    median: c.median,
    low: c.lo,
    high: c.hi,
    spread: c.spread ?? 'spread of the trials',
    warnings,
    noise,
  };
}

/** "1.23×", "0.87×"; beside an interval, in its decimals ("1.040×" over "1.0003–1.0816"). */
export function formatRatio(r: number | null, low: number | null = null, high: number | null = null): string {
  return r === null ? '—' : `${r.toFixed(low !== null && high !== null ? intervalDecimals(low, high) : 2)}×`;
}

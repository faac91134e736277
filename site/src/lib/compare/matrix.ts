import type { Verdict } from '@redis-benchdb/result/verdict';
import { intervalDecimals } from '@redis-benchdb/result/verdict';

/**
 * The first screen's answer on group and version pages (issue 28): a few workloads down, the
 * servers across, each entry a ratio to one baseline with its interval and the rule's verdict.
 * Plain data: group-matrix.ts and version-matrix.ts fill it by the project's existing rules,
 * components/Matrix.astro draws it.
 */
export interface MatrixColumn {
  /** "valkey 8.0.1 · io-threads 2": server and setting, never a hash. */
  name: string;
  href: string | null;
  /** Run-wide warnings that set this column apart (IO_THREADS_OVER_CPUS): a reader sees them beside the figures. */
  notes: string[];
}

export type MatrixEntry =
  /** The baseline's own cell: its median ops/s, what every ratio in its row is over. */
  | { kind: 'baseline'; ops: number }
  | {
      kind: 'ratio';
      /** Column over baseline. */
      ratio: number;
      /** Paired 95% interval of the ratio; null when the evidence gives none (unpaired, or one round). */
      low: number | null;
      high: number | null;
      /** What the figure rests on, in a few words: "paired, 3 rounds", "ratio of medians, 2 and 1 results". */
      basis: string;
      /** Shown in the interval's place where there is none: "medians", "one round". */
      instead: string;
      verdict: Verdict;
      /** The no-verdict warnings on either side (DRIFT, UNSTABLE...): why an interval that excludes 1 says nothing. */
      flags: string[];
      /** The page the paired interval comes from (a version page's figure rests on a group); null on that group's own page. */
      href: string | null;
      /**
       * Where the figure rests on groups the page is not about (a version page): the paired figure's
       * group, and the line saying what other groups that ran both gave, or why none paired (paired-sources.ts).
       * Matrix.astro lists them under the table, so the cell stays as narrow as its figures.
       */
      source?: { groupId: string | null; rounds: number | null; note: string | null };
    }
  /** No figure: the cell is missing on either side, or mostly errors. */
  | { kind: 'none'; why: string };

export interface MatrixRow {
  /** "GET", "SET P16": the suite's own label. */
  label: string;
  /** "no pipelining", "pipeline 16": what sets it apart from its neighbours. */
  note: string;
  entries: MatrixEntry[];
}

export interface Matrix {
  /** The column every ratio is over. */
  baseline: number;
  columns: MatrixColumn[];
  rows: MatrixRow[];
}

/**
 * The workloads that answer "which is faster" at a glance, by the suite's labels: baseline GET and
 * SET, then pipelined GET and SET, each as the profile that ran it names it. The standard profiles
 * (quick, full) name them GET, SET, GET P16, SET P16; the compare profile (valkey-io/valkey#1026's
 * rows) runs 16-byte values at pipeline 1 and 10: GET 16B, SET 16B, GET P10 16B, SET P10 16B (its
 * pipeline-1 cells are client-bound on a 2-vCPU VM, which the entry then says). A group or a machine
 * kind shows those of them it holds, in this order; SLO cells follow, wherever a result has them
 * (lib/slo.ts).
 */
export const MATRIX_LABELS: readonly { label: string; note: string }[] = [
  { label: 'GET', note: 'no pipelining' },
  { label: 'GET 16B', note: 'no pipelining, 16 B' },
  { label: 'SET', note: 'no pipelining' },
  { label: 'SET 16B', note: 'no pipelining, 16 B' },
  { label: 'GET P16', note: 'pipeline 16' },
  { label: 'GET P10 16B', note: 'pipeline 10, 16 B' },
  { label: 'SET P16', note: 'pipeline 16' },
  { label: 'SET P10 16B', note: 'pipeline 10, 16 B' },
];

/**
 * "1.02×" without an interval; beside one, the interval's decimals (packages/result intervalDecimals:
 * 3, or more where a bound that excludes 1 would read 1.000), so "1.04×" never sits over "1.00–1.08".
 */
export const times = (x: number, low: number | null = null, high: number | null = null) =>
  `${x.toFixed(low !== null && high !== null ? intervalDecimals(low, high) : 2)}×`;

import type { Cell, Latency, ResultV1, Workload } from '../generated/result-v1.js';
import { checkAgreement, type DecodeBudget, decodeOrRefuse, newDecodeBudget } from './histogram-agreement.js';
import type { PlausibilityProblem } from './plausibility-problem.js';

// Checks a signed, schema-valid result must still pass before it is stored. A signature proves who
// sent a file, not that its figures could have been measured: these catch a broken runner, a hand-
// edited file re-signed, and a key holder publishing fiction. Pure: no clock unless given, no I/O.

export type { PlausibilityProblem };

export interface PlausibilityOptions {
  /** The time the result is judged at, for "not in the future". @default new Date() */
  now?: Date;
}

export const PLAUSIBILITY_LIMITS = {
  /** Published single-server figures reach a few million ops/s; 50 million is a typo or fiction. */
  maxOpsPerSec: 50_000_000,
  /**
   * Little's law: ops/s = in-flight / mean latency, and in-flight <= connections × pipelineDepth
   * (× primaries in a cluster), with the mean taken from the decoded histogram. The factor covers
   * warm-up, clock and histogram rounding; anything beyond it was not measured.
   */
  littleSlack: 2,
  /** The runner records whole µs: a mean of 0 is of latencies under half a microsecond, not of none. */
  minMeanUs: 0.5,
  /** Before this project and its format existed. */
  earliest: Date.parse('2020-01-01T00:00:00Z'),
  /** Clocks drift, but a day ahead of ours is a wrong clock or an invented file. */
  futureMs: 24 * 3600 * 1000,
  /** The runner rounds the median and its CI to 2 decimals. */
  ciToleranceOps: 0.01,
  /** Past this many problems the file is broken, and listing more helps no one. */
  maxProblems: 20,
} as const;

const PERCENTILES = ['p50Us', 'p90Us', 'p95Us', 'p99Us', 'p999Us', 'p9999Us', 'maxUs'] as const;

/**
 * Every number finite and >= 0. Run on the parsed payload, before anything trusts its types: JSON
 * can carry `1e999`, which JSON.parse turns into Infinity, and a schema's `minimum: 0` lets it pass.
 * The one signed field is `crossCheck.observed`, which the format allows to be negative.
 */
export function checkNumbers(value: unknown, path = ''): PlausibilityProblem[] {
  const out: PlausibilityProblem[] = [];
  walk(value, path, out);
  return out;
}

function walk(value: unknown, path: string, out: PlausibilityProblem[]): void {
  if (out.length >= PLAUSIBILITY_LIMITS.maxProblems) return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) out.push(problem(path, `${value} is not a finite number`));
    else if (value < 0 && !path.endsWith('/crossCheck/observed'))
      out.push(problem(path, `${value} is negative (counts, rates and times cannot be)`));
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) walk(v, `${path}/${i}`, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) walk(v, `${path}/${pointerEscape(k)}`, out);
  }
}

/** Every problem found, up to `maxProblems`; empty when the result is plausible. */
export function checkPlausibility(result: ResultV1, opts: PlausibilityOptions = {}): PlausibilityProblem[] {
  const numbers = checkNumbers(result);
  if (numbers.length > 0) return numbers; // the checks below would only repeat them as nonsense
  const out: PlausibilityProblem[] = [];
  checkTimes(result, (opts.now ?? new Date()).getTime(), out);
  // The schema cannot compare two fields: a position past the group's end is a broken runner.
  const group = result.runGroup;
  if (group && group.index >= group.size)
    out.push(
      problem('/runGroup/index', `${group.index} is not below size (${group.size}): positions are 0-based`),
    );
  const primaries = result.target.cluster?.nodes.filter((n) => n.role === 'primary').length || 1;
  const budget = newDecodeBudget();
  for (const [i, cell] of result.cells.entries()) checkCell(cell, i, primaries, budget, out);
  // A histogram that could not be read is the reason to give, however many problems came before it.
  const unread = out.filter((p) => p.code === 'INVALID_HISTOGRAM');
  return (unread.length > 0 ? unread : out).slice(0, PLAUSIBILITY_LIMITS.maxProblems);
}

function checkTimes(r: ResultV1, now: number, out: PlausibilityProblem[]): void {
  const started = Date.parse(r.startedAt);
  const finished = Date.parse(r.finishedAt);
  for (const [path, t, text] of [
    ['/startedAt', started, r.startedAt],
    ['/finishedAt', finished, r.finishedAt],
  ] as const) {
    if (Number.isNaN(t)) out.push(problem(path, `${text} is not a date`));
    else if (t < PLAUSIBILITY_LIMITS.earliest) out.push(problem(path, `${text} is before 2020-01-01`));
    else if (t > now + PLAUSIBILITY_LIMITS.futureMs)
      out.push(problem(path, `${text} is more than 24 h in the future (is the clock right?)`));
  }
  if (started > finished)
    out.push(problem('/finishedAt', `${r.finishedAt} is before startedAt ${r.startedAt}`));
}

function checkCell(
  c: Cell,
  i: number,
  primaries: number,
  budget: DecodeBudget,
  out: PlausibilityProblem[],
): void {
  const path = `/cells/${i}`;
  const name = `${i} ${JSON.stringify(c.label)}`;
  if (c.trialCount !== c.trials.length)
    out.push(problem(`${path}/trialCount`, `${c.trialCount} but the cell has ${c.trials.length} trials`));
  checkCompleted(c, path, out);
  const { median, ci95Low, ci95High } = c.opsPerSec;
  const tol = PLAUSIBILITY_LIMITS.ciToleranceOps;
  if (median < ci95Low - tol || median > ci95High + tol)
    out.push(
      problem(`${path}/opsPerSec/median`, `${median} is outside its 95% CI [${ci95Low}, ${ci95High}]`),
    );
  checkMeasured(c, median, path, name, primaries, c.workload, `${path}/opsPerSec/median`, budget, out);
  c.trials.forEach((t, j) => {
    const tp = `${path}/trials/${j}`;
    checkCompleted(t, tp, out);
    const tName = `${name}, trial ${j}`;
    checkMeasured(t, t.opsPerSec, tp, tName, primaries, c.workload, `${tp}/opsPerSec`, budget, out);
  });
}

/**
 * What a cell or a trial measured: its stated latency summaries against their histograms, and its
 * ops/s against what its histogram allows (Little's law). Every figure is checked whatever the
 * others say: the histograms are decoded here, so no stated value can switch a check off.
 */
function checkMeasured(
  m: Pick<Cell, 'latencyUs' | 'histogram' | 'responseTimeUs' | 'responseHistogram'>,
  ops: number,
  path: string,
  name: string,
  primaries: number,
  w: Workload,
  opsPath: string,
  budget: DecodeBudget,
  out: PlausibilityProblem[],
): void {
  checkPercentiles(m.latencyUs, `${path}/latencyUs`, out);
  const own = decodeOrRefuse(m.histogram, `${path}/histogram`, name, budget, out);
  if (own) checkAgreement(m.latencyUs, own, path, { summary: 'latencyUs', histogram: 'histogram' }, out);
  checkRate(ops, w, own?.meanUs, primaries, opsPath, out);
  if (m.responseTimeUs) checkPercentiles(m.responseTimeUs, `${path}/responseTimeUs`, out);
  if ((m.responseTimeUs === null) !== (m.responseHistogram === null)) {
    out.push(
      problem(
        `${path}/responseHistogram`,
        'responseTimeUs and responseHistogram go together (open loop): give both or neither',
      ),
    );
    return;
  }
  if (m.responseTimeUs && m.responseHistogram) {
    const r = decodeOrRefuse(m.responseHistogram, `${path}/responseHistogram`, name, budget, out);
    const names = { summary: 'responseTimeUs', histogram: 'responseHistogram' };
    if (r) checkAgreement(m.responseTimeUs, r, path, names, out);
  }
}

function checkCompleted(
  x: { completed: number; requested: number | null },
  path: string,
  out: PlausibilityProblem[],
) {
  if (x.requested !== null && x.completed > x.requested)
    out.push(problem(`${path}/completed`, `${x.completed} is more than the ${x.requested} requested`));
}

function checkRate(
  ops: number,
  w: Workload,
  meanUs: number | undefined,
  primaries: number,
  path: string,
  out: PlausibilityProblem[],
): void {
  if (ops > PLAUSIBILITY_LIMITS.maxOpsPerSec) {
    out.push(
      problem(
        path,
        `${ops} ops/s is more than one server can do (limit ${PLAUSIBILITY_LIMITS.maxOpsPerSec})`,
      ),
    );
    return;
  }
  if (meanUs === undefined) return; // its histogram was refused, which says enough
  // The histogram's own mean, never a stated figure. A cluster run keeps a pipeline per primary.
  const atUs = Math.max(meanUs, PLAUSIBILITY_LIMITS.minMeanUs);
  const inFlight = w.connections * w.pipelineDepth * primaries;
  const bound = inFlight / (atUs * 1e-6);
  if (ops > bound * PLAUSIBILITY_LIMITS.littleSlack) {
    const per = primaries > 1 ? ` × ${primaries} primaries` : '';
    out.push(
      problem(
        path,
        `${ops} ops/s is more than ${PLAUSIBILITY_LIMITS.littleSlack}x what ${w.connections} connections × pipeline ${w.pipelineDepth}${per} can carry at the mean latency its histogram records, ${round(atUs)} µs (Little's law: at most ${Math.round(bound)} ops/s)`,
      ),
    );
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function checkPercentiles(l: Latency, path: string, out: PlausibilityProblem[]): void {
  for (let i = 1; i < PERCENTILES.length; i++) {
    const lower = PERCENTILES[i - 1]!;
    const key = PERCENTILES[i]!;
    if (l[key] < l[lower])
      out.push(
        problem(`${path}/${key}`, `${l[key]} is below ${lower} (${l[lower]}): percentiles cannot decrease`),
      );
  }
}

function problem(path: string, why: string): PlausibilityProblem {
  return { code: 'IMPLAUSIBLE', path, message: `${path || '(document)'}: ${why}` };
}

/** JSON Pointer escaping (RFC 6901). */
function pointerEscape(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

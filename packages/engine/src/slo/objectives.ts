import { HIGHEST_TRACKABLE_US, type SloObjective } from '@redis-benchdb/result';

/** What `--slo` accepts, named in every refusal so the fix is in the message. */
const SLO_SYNTAX =
  'objectives like p99<=1ms or p99<=1ms,p99.9<=5ms: a percentile p<number> below 100, <=, a latency with a unit us or ms';

/** At most this many objectives: each is a percentile read from every step's histogram. */
const MAX_OBJECTIVES = 8;

export class SloSyntaxError extends Error {
  readonly code = 'ERR_SLO_SYNTAX';
}

const OBJECTIVE = /^p(\d+(?:\.\d+)?)\s*<=\s*(\d+(?:\.\d+)?)\s*(us|µs|ms)$/i;

/** `p99<=1ms,p99.9<=5ms` as objectives, strictest percentile last; throws SloSyntaxError. */
export function parseObjectives(text: string): SloObjective[] {
  const parts = text.split(',').map((s) => s.trim());
  const refuse = (why: string) =>
    new SloSyntaxError(`invalid --slo "${text}": ${why} (expected ${SLO_SYNTAX})`);
  if (parts.length > MAX_OBJECTIVES) throw refuse(`more than ${MAX_OBJECTIVES} objectives`);
  const out: SloObjective[] = [];
  for (const part of parts) {
    const m = OBJECTIVE.exec(part);
    if (!m) throw refuse(part === '' ? 'an empty objective' : `cannot read "${part}"`);
    const percentile = Number(m[1]);
    const value = Number(m[2]);
    if (!(percentile > 0 && percentile < 100)) throw refuse(`p${m[1]} is not a percentile between 0 and 100`);
    if (out.some((o) => o.percentile === percentile)) throw refuse(`p${m[1]} is given twice`);
    const maxUs = Math.round((m[3]!.toLowerCase() === 'ms' ? value * 1000 : value) * 1000) / 1000;
    // Latencies are recorded in whole microseconds, up to an hour.
    if (!(maxUs >= 1 && maxUs <= HIGHEST_TRACKABLE_US))
      throw refuse(`"${part}" is outside 1us to ${HIGHEST_TRACKABLE_US / 1000}ms`);
    out.push({ percentile, maxUs });
  }
  return out.sort((a, b) => a.percentile - b.percentile);
}

/** The canonical form recorded in the workload (and fingerprinted): `p99<=1000us,p99.9<=5000us`. */
export function canonicalObjectives(objectives: readonly SloObjective[]): string {
  return objectives.map((o) => `p${o.percentile}<=${o.maxUs}us`).join(',');
}

/** As a reader writes them: `p99<=1ms,p99.9<=500us`. */
export function describeObjectives(objectives: readonly SloObjective[]): string {
  return objectives.map((o) => `p${o.percentile}<=${formatUs(o.maxUs)}`).join(',');
}

function formatUs(us: number): string {
  return us >= 1000 && us % 100 === 0 ? `${us / 1000}ms` : `${us}us`;
}

import type { SloSearch, SloStep } from '@redis-benchdb/result';

const n = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (us: number) => (us / 1000).toFixed(3);

/** One line per step of a search, on stderr while it runs. */
export function sloStepLine(
  label: string,
  step: SloStep,
  index: number,
  search: { objectives: SloSearch['objectives'] },
): string {
  const pcts = search.objectives.map((o, i) => `p${o.percentile}=${ms(step.percentilesUs[i]!)} ms`).join(' ');
  const verdict = step.pass ? 'pass' : `fail: ${step.failures.join('; ')}`;
  return `${label}: step ${index + 1}: ${n(step.offeredOpsPerSec)} ops/s offered, ${n(step.achievedOpsPerSec)} achieved in ${step.durationSec} s, ${pcts} (from intended send): ${verdict}`;
}

/** The search's answer: "max 84,000 ops/s at p99<=1ms (bracket 80,000–88,000)", or why there is none. */
export function sloAnswerLine(label: string, objectives: string, s: SloSearch): string {
  const { passOpsPerSec: pass, failOpsPerSec: fail } = s.bracket;
  const took = `${s.steps.length} steps in ${s.elapsedSec.toFixed(1)} s`;
  if (s.outcome === 'bracketed' && s.answerOpsPerSec !== null)
    return `${label}: max ${n(s.answerOpsPerSec)} ops/s at ${objectives} (bracket ${n(pass!)}–${n(fail!)}; ${took})`;
  const known =
    pass !== null ? ` (at least ${n(pass)} ops/s passed${fail !== null ? `, ${n(fail)} failed` : ''})` : '';
  return `${label}: no answer at ${objectives}: ${s.outcome}: ${s.reason}${known} (${took})`;
}

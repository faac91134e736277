import type { BenchSession } from '@redis-benchdb/engine';
import {
  BUSY_HOST_OTHER_CPU_FRACTION,
  type InterferenceFigures,
  type InterferenceSampler,
  localServerPid,
  nullFigures,
  serverProcessId,
  startInterferenceSampler,
} from '@redis-benchdb/probe';

/**
 * One cell's interference over its trials: a sampler runs over each trial's measured phase (the
 * engine's onMeasureStart/onMeasureEnd hooks), and the cell keeps its most disturbed trial.
 */
export class CellInterference {
  private sampler: InterferenceSampler | null = null;
  readonly trials: InterferenceFigures[] = [];

  constructor(private readonly serverPid: number | null) {}

  /** The hooks to pass to BenchSession.runCell. */
  readonly hooks = {
    onMeasureStart: () => {
      this.sampler = startInterferenceSampler({ serverPid: this.serverPid });
    },
    onMeasureEnd: () => this.end(),
  };

  /** Ends a sampler the engine did not end (a trial that threw); the figures still count. */
  end(): void {
    if (this.sampler) this.trials.push(this.sampler.stop());
    this.sampler = null;
  }

  summary(): InterferenceFigures | null {
    this.end();
    return combineTrials(this.trials);
  }
}

/**
 * The cell's figures: the most disturbed trial's fractions and run queue (one bad trial is what
 * moves a median), context switches and samples summed over the trials.
 */
export function combineTrials(trials: InterferenceFigures[]): InterferenceFigures | null {
  if (trials.length === 0) return null;
  const known = trials.filter((t) => t.otherCpuFraction !== null || t.stealFraction !== null);
  if (known.length === 0) return trials[0] ?? nullFigures('no trial measured');
  const max = (f: (t: InterferenceFigures) => number | null) => {
    const xs = known.map(f).filter((x): x is number => x !== null);
    return xs.length ? Math.max(...xs) : null;
  };
  const sum = (f: (t: InterferenceFigures) => number | null) => {
    const xs = known.map(f);
    return xs.some((x) => x === null) ? null : (xs as number[]).reduce((a, b) => a + b, 0);
  };
  // A trial whose other work could not be measured (figures read, accounting irreconcilable) keeps
  // the cell from passing as quiet, unless another trial already shows it busy.
  const other = max((t) => t.otherCpuFraction);
  const unknown = known.some((t) => t.otherCpuFraction === null && t.stealFraction !== null);
  const notes = [...new Set(known.map((t) => t.note).filter((n): n is string => n !== null))];
  return {
    cpuCount: known[0]!.cpuCount,
    stealFraction: max((t) => t.stealFraction),
    otherCpuFraction: unknown && (other === null || other <= BUSY_HOST_OTHER_CPU_FRACTION) ? null : other,
    runQueueMean: max((t) => t.runQueueMean),
    runQueueMax: max((t) => t.runQueueMax),
    clientInvoluntaryCtxSwitches: sum((t) => t.clientInvoluntaryCtxSwitches),
    serverInvoluntaryCtxSwitches: sum((t) => t.serverInvoluntaryCtxSwitches),
    sampleCount: known.reduce((a, t) => a + t.sampleCount, 0),
    // The schema holds a note to 500 characters.
    note: notes.length ? notes.join('; ').slice(0, 500) : null,
  };
}

/** The server's pid when it runs on this host (INFO process_id, checked against /proc), else null. */
export async function localServerPidOf(session: BenchSession, local: boolean | null): Promise<number | null> {
  if (local === false) return null;
  const info = await session.control.info('server').catch(() => ({}) as Record<string, string>);
  return localServerPid(serverProcessId(info));
}

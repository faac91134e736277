import {
  type BenchSession,
  type CellOptions,
  type CellResult,
  describeObjectives,
  runSloSearch,
  type SloSearchHooks,
  type SloSearchOptions,
} from '@redis-benchdb/engine';
import { sloAnswerLine, sloStepLine } from './slo-lines.js';

/**
 * One trial of an --slo cell: a search, its steps printed on stderr as they end and its answer on
 * stdout (stderr with --json or --csv, whose stdout is the document). The trial is the answer's step.
 */
export async function searchCell(
  session: BenchSession,
  options: CellOptions,
  slo: SloSearchOptions,
  label: string,
  hooks: SloSearchHooks,
  answerTo: NodeJS.WritableStream = process.stdout,
): Promise<CellResult> {
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const run = await runSloSearch(session, options, slo, {
    ...hooks,
    onStep: (step, i) => log(sloStepLine(label, step, i, slo)),
  });
  answerTo.write(`${sloAnswerLine(label, describeObjectives(slo.objectives), run.search)}\n`);
  return run.trial;
}

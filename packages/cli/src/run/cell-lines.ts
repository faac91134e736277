import { describeObjectives } from '@redis-benchdb/engine';
import type { RunCellsReport } from '@redis-benchdb/runner';
import { csvRow, textLine } from './format.js';
import { Progress } from './progress.js';
import { sloAnswerLine, sloStepLine } from './slo-lines.js';

/**
 * A run on one server as the terminal shows it: a progress line on stderr while a cell runs, each
 * cell's line as it ends (text or CSV on stdout; --json prints the document at the end), a search's
 * steps on stderr and its answer on stdout (stderr with --json or --csv, whose stdout is the document).
 */
export function cellLines(
  mode: 'json' | 'csv' | 'text',
  quiet: boolean,
  log: (s: string) => void,
): RunCellsReport {
  const progress = new Progress();
  const answerTo = mode === 'text' ? process.stdout : process.stderr;
  return {
    progress: (p) =>
      progress.update(p.label, p.cellIndex, p.cells, p.completed, p.requested, p.elapsedSec, p.durationSec),
    cellEnded: () => progress.clear(),
    measured: (summary) => {
      if (mode === 'text') process.stdout.write(`${textLine(summary, quiet)}\n`);
      else if (mode === 'csv') process.stdout.write(`${csvRow(summary)}\n`);
    },
    sloStep: (label, step, index, slo) => process.stderr.write(`${sloStepLine(label, step, index, slo)}\n`),
    sloAnswer: (label, slo, search) =>
      answerTo.write(`${sloAnswerLine(label, describeObjectives(slo.objectives), search)}\n`),
    measuringDrift: (cell) => {
      if (mode === 'text') log(`measuring ${cell} again to check for drift...`);
    },
  };
}

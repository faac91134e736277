import type { GroupCellsReport } from '@redis-benchdb/runner';
import { textLine } from './format.js';
import { Progress } from './progress.js';

/**
 * A group's run as the terminal shows it: a progress line on stderr while a cell runs, and in text
 * mode each member's line per cell as it completes (CSV and JSON print at the end).
 */
export function groupLines(opts: { text: boolean; quiet: boolean }): GroupCellsReport {
  const progress = new Progress();
  const say = (s: string) => {
    if (opts.text) process.stderr.write(`${s}\n`);
  };
  return {
    starting: (cells, trials, servers) =>
      say(
        `redis-benchdb: ${cells} cell${cells > 1 ? 's' : ''}${trials > 1 ? `, ${trials} trials each` : ''}, interleaved over ${servers} server${servers > 1 ? 's' : ''}`,
      ),
    progress: (p) =>
      progress.update(
        `${p.member.tag} ${p.cell}${p.trials > 1 ? ` (round ${p.round}/${p.trials})` : ''}`,
        p.cellIndex,
        p.cells,
        p.completed,
        p.requested,
        p.elapsedSec,
        p.durationSec,
      ),
    cellEnded: () => progress.clear(),
    measured: (member, summary) => {
      if (opts.text) process.stdout.write(`${member.tag} ${textLine(summary, opts.quiet)}\n`);
    },
    measuringDrift: (cell) => say(`measuring ${cell} again on every server to check for drift...`),
  };
}

import { compareResults, toCompareInput } from '../compare/compare.js';
import type { MatrixEntry } from '../compare/matrix.js';
import { noiseOf } from '../data/noise.js';
import type { ResultView } from '../model/model.js';

/**
 * The operator's question on the home page (issue 44, item 6): where the answer names the fastest
 * server, the caveats go in the same place. The figures are the group page's with the leader as
 * baseline (compareResults, packages/result comparePair), so the leader's lead over each other server
 * is its own paired interval, not two ratios over a third server's. Pure over the views it is given.
 */
export interface Undecided {
  server: string;
  /** The other server over the leader: below 1 where the leader is ahead. */
  ratio: number;
  low: number | null;
  high: number | null;
}

export interface AnswerLeader {
  /** The member's index in the group. */
  index: number;
  /** The workload it leads on: the answer's first column, "GET P10 16B". */
  label: string;
  /** Other servers it is faster than there (paired verdicts), of `others` with a figure. */
  ahead: number;
  others: number;
  /**
   * The same command and pipeline at each other value size the group ran ("GET P10 128B"): the
   * servers it has no verdict against there, and those it is slower than there by the rule.
   */
  elsewhere: { label: string; undecided: Undecided[]; behind: Undecided[] }[];
}

/** "GET P10 16B" without its value size: "GET P10". Labels of one command at two value sizes share it. */
const withoutSize = (label: string) => label.replace(/ \d+[KM]?i?B$/, '');

/**
 * The server with the highest ratio in the answer's first column, and what holds its lead: how many it
 * beats there, and at the same command's other value sizes which of them it does not beat by the rule.
 * Null when the first column has no ratio (nothing to lead).
 */
export function answerLeader(
  members: readonly ResultView[],
  label: string,
  entries: readonly MatrixEntry[],
  name: (m: ResultView) => string,
): AnswerLeader | null {
  const score = (e: MatrixEntry | undefined) =>
    e?.kind === 'ratio' ? e.ratio : e?.kind === 'baseline' ? 1 : Number.NEGATIVE_INFINITY;
  let index = -1;
  for (let i = 0; i < entries.length; i++)
    if (score(entries[i]) > score(entries[index]) && entries[i]!.kind !== 'none') index = i;
  if (index < 0 || entries.every((e) => e.kind !== 'ratio')) return null;
  const order = [index, ...members.keys()].filter((i, k) => k === 0 || i !== index);
  const comparison = compareResults(
    order.map((i) => ({ ...toCompareInput(members[i]!, noiseOf(members[i]!)), name: members[i]!.id })),
  );
  const own = comparison.cells.find((c) => c.label === label);
  const others = own ? own.verdicts.filter((v, k) => k > 0 && v !== null).length : 0;
  // Each other server over the leader: "slower" is the leader ahead by the rule.
  const ahead = own ? own.verdicts.filter((v, k) => k > 0 && v?.outcome === 'slower').length : 0;
  const elsewhere = comparison.cells
    .filter((c) => c.label !== label && withoutSize(c.label) === withoutSize(label))
    .map((c) => {
      const those = (outcome: string) =>
        order.flatMap((i, k) => {
          const v = c.verdicts[k];
          const r = c.ratios[k];
          if (k === 0 || v?.outcome !== outcome || r === null || r === undefined) return [];
          const p = c.paired?.[k] ?? null;
          return [
            { server: name(members[i]!), ratio: r, low: p?.ci95Low ?? null, high: p?.ci95High ?? null },
          ];
        });
      // Each other server over the leader: "faster" is the leader behind it there.
      return { label: c.label, undecided: those('no verdict'), behind: those('faster') };
    });
  return { index, label, ahead, others, elsewhere };
}

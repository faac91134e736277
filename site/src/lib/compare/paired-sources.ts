import type { Verdict } from '@redis-benchdb/result/verdict';
import { type Matrix, times } from './matrix.js';

/**
 * Where a paired figure came from, in words a reader sees beside it (issue 44, item 5): one pair of
 * versions read 1.08x on one page and 0.90x on another, depending on the run group picked, with no word
 * on why. Every paired figure names its group; where other groups ran both too, the line says what
 * each gave and whether it points the other way.
 */

/** Another group's paired figure for the same pair (version-verdicts.ts fills these). */
export interface AlsoPaired {
  groupId: string;
  rounds: number;
  ratio: number;
  low: number | null;
  high: number | null;
  verdict: Verdict;
}

/** What of a figure these lines read. */
interface Figure {
  ratio: number | null;
  rounds: number | null;
  verdict: Verdict;
  alsoPaired: readonly AlsoPaired[];
}

/** "run group 4ac72126": the first 8 hex digits, as the group pages' links show them. */
export const groupName = (id: string) => `run group ${id.slice(0, 8)}`;

const rounds = (n: number | null) => `${n ?? '?'} round${n === 1 ? '' : 's'}`;

/** Another group's figure says otherwise: an opposite verdict, or the other side of 1. */
export function disagrees(f: Pick<Figure, 'ratio' | 'verdict'>, o: AlsoPaired): boolean {
  const a = f.verdict.outcome;
  const b = o.verdict.outcome;
  if (a !== 'no verdict' && b !== 'no verdict') return a !== b;
  return f.ratio !== null && (f.ratio - 1) * (o.ratio - 1) < 0;
}

/**
 * "3 groups ran both: 1.08× here (10 rounds), 0.90× in run group 6adfebc8 (3 rounds, slower: the
 * other way), 1.05× in run group 2142880d (3 rounds)"; null for a figure only one group (or none) gave.
 */
export function alsoPairedText(f: Figure): string | null {
  if (f.alsoPaired.length === 0 || f.ratio === null) return null;
  const others = f.alsoPaired.map((o) => {
    const outcome = o.verdict.outcome === 'no verdict' ? 'no verdict' : o.verdict.outcome;
    const way = disagrees(f, o) ? ': the other way' : '';
    return `${times(o.ratio)} in ${groupName(o.groupId)} (${rounds(o.rounds)}, ${outcome}${way})`;
  });
  const n = f.alsoPaired.length + 1;
  const split = f.alsoPaired.some((o) => disagrees(f, o));
  const header = split ? ' and point different ways' : '';
  // The group with the most rounds is shown; among equals, the newest (pair-evidence.ts).
  const why = f.alsoPaired.every((o) => o.rounds < (f.rounds ?? 0)) ? 'the most' : 'the newest of equals';
  return `${n} groups ran both${header}: ${times(f.ratio)} here (${rounds(f.rounds)}, ${why}), ${others.join(', ')}.`;
}

/**
 * For a ratio of medians: the run groups that ran both versions all the same, each of which had a
 * side's cell left out (so no pair could be made), and how many groups the medians' results came from.
 * "Not run together: the medians come from results of 3 run groups; 2 groups ran both, but in each
 * one side's cell was left out (below)". Null when the results ran in no group.
 */
export function unpairedText(
  ref: readonly { runGroupId: string | null }[],
  other: readonly { runGroupId: string | null }[],
  ranBoth: readonly string[],
): string | null {
  const groups = new Set([...ref, ...other].map((c) => c.runGroupId).filter((g): g is string => !!g));
  if (groups.size === 0 && ranBoth.length === 0) return null;
  const from =
    groups.size > 0
      ? `the medians come from results of ${groups.size} run group${groups.size === 1 ? '' : 's'}`
      : 'the medians come from results of no run group';
  const both =
    ranBoth.length > 0
      ? `; ${ranBoth.length === 1 ? `${groupName(ranBoth[0]!)} ran both` : `${ranBoth.length} groups ran both (${ranBoth.map((g) => g.slice(0, 8)).join(', ')})`}, but left out one side's cell${ranBoth.length === 1 ? '' : ' in each'} (listed below), so no pair`
      : '';
  return `Not run together: ${from}${both}.`;
}

/**
 * Under a version page's matrix: each run group its paired figures came from (with the entries, where
 * there are several groups), and each entry's note on the other groups that ran both or why none paired.
 */
export function matrixSources(matrix: Matrix): {
  groups: { groupId: string; rounds: number | null; entries: string[] }[];
  notes: { where: string; note: string; groups: number }[];
} {
  const groups = new Map<string, { groupId: string; rounds: number | null; entries: string[] }>();
  const notes: { where: string; note: string; groups: number }[] = [];
  for (const r of matrix.rows)
    r.entries.forEach((e, i) => {
      if (e.kind !== 'ratio' || !e.source) return;
      const where = `${r.label} ${matrix.columns[i]!.name}`;
      const g = e.source.groupId;
      if (g) {
        const seen = groups.get(g) ?? { groupId: g, rounds: e.source.rounds, entries: [] };
        seen.entries.push(where);
        groups.set(g, seen);
      }
      if (e.source.note)
        notes.push({
          where,
          note: e.source.note,
          groups: Number(/^(\d+) groups/.exec(e.source.note)?.[1] ?? 1),
        });
    });
  // The group behind most figures first: the line names the others' figures and says "the rest" for it.
  return { groups: [...groups.values()].sort((a, b) => b.entries.length - a.entries.length), notes };
}

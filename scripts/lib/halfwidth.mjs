// How precisely an interleaved group tells its servers apart, as a function of rounds: for each cell
// and each member against the group's base, the 95% half-width of the paired per-round ratio over the
// first k rounds. Issue 29 chooses the comparison profile's trial count with it: the fewest rounds
// whose half-width is at most 3% on the cells where the server, not the client, is the limit.
import { pairedRatio } from '@redis-benchdb/result';

/** A cell counts as server-bound when at least this share of its trials, over every member, says so. */
export const SERVER_BOUND_SHARE = 0.9;

/** The share of a cell's trials, over every member, whose saturation says the server was the limit. */
export function serverBoundShare(docs, label) {
  let server = 0;
  let all = 0;
  for (const d of docs)
    for (const t of d.cells.find((c) => c.label === label)?.trials ?? []) {
      all++;
      if (t.saturation?.limitedBy === 'server') server++;
    }
  return all === 0 ? 0 : server / all;
}

/** The 95% half-width of a paired ratio, as a fraction of it (0.03 is ±3%); null with fewer than 2 rounds. */
export function halfWidth(base, other) {
  const a = [];
  const b = [];
  for (let i = 0; i < Math.min(base.length, other.length); i++)
    if (base[i] > 0 && other[i] > 0) {
      a.push(base[i]);
      b.push(other[i]);
    }
  if (a.length < 2) return null;
  const p = pairedRatio(a, b);
  return p.ci95High === null ? null : p.ci95High / p.ratio - 1;
}

/**
 * For each round count k, every (cell, member) pair's half-width over the first k rounds, with the
 * cell's server-bound share. `docs` are one group's result documents; the base is its first member.
 */
export function halfWidthsByRounds(docs, roundCounts) {
  const sorted = [...docs].sort((x, y) => x.runGroup.index - y.runGroup.index);
  const [base, ...others] = sorted;
  const labels = base.cells
    .map((c) => c.label)
    .filter((l) => others.every((d) => d.cells.some((c) => c.label === l)));
  const ops = (d, label) => d.cells.find((c) => c.label === label).trials.map((t) => t.opsPerSec);
  const shares = new Map(labels.map((l) => [l, serverBoundShare(sorted, l)]));
  return roundCounts.map((k) => ({
    rounds: k,
    pairs: labels.flatMap((label) =>
      others.map((d) => ({
        label,
        member: memberName(d),
        serverBound: shares.get(label) >= SERVER_BOUND_SHARE,
        serverBoundShare: shares.get(label),
        halfWidth: halfWidth(ops(base, label).slice(0, k), ops(d, label).slice(0, k)),
      })),
    ),
  }));
}

export function memberName(d) {
  const s = d.environment.server;
  return `${s.product ?? '?'} ${s.version ?? '?'}${d.runGroup?.label ? ` (${d.runGroup.label})` : ''}`;
}

/** One line per round count: over the server-bound pairs, the median and worst half-width and the share within `target`. */
export function summarize(table, target = 0.03) {
  return table.map(({ rounds, pairs }) => {
    const bound = pairs.filter((p) => p.serverBound && p.halfWidth !== null);
    const hws = bound.map((p) => p.halfWidth).sort((x, y) => x - y);
    const worst = bound.reduce((w, p) => (w === null || p.halfWidth > w.halfWidth ? p : w), null);
    return {
      rounds,
      serverBoundPairs: bound.length,
      medianHalfWidth: hws.length ? hws[(hws.length - 1) >> 1] : null,
      withinTarget: hws.length ? hws.filter((h) => h <= target).length / hws.length : null,
      worst: worst && { label: worst.label, member: worst.member, halfWidth: worst.halfWidth },
    };
  });
}

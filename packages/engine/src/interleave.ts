/**
 * Interleaved trials: several servers measured round by round. Round r of a cell runs trial r
 * against every member, back to back, in an order drawn afresh each round; so whatever else the
 * machine does meanwhile (another job, a throttled CPU, a noisy neighbour) weighs on every member
 * alike, instead of on whichever happened to run at that time. Each trial is an ordinary
 * BenchSession.runCell (its own warm-up included), so a member's trials are the ones a run of it
 * alone would make.
 */

import { seededRandom } from '@redis-benchdb/result';
import type { CellOptions } from './options.js';
import type { BenchSession, CellResult, RunCellHooks } from './session.js';

/** One member of an interleaved group: its place in the group and its session on its server. */
export interface InterleavedMember {
  index: number;
  session: BenchSession;
}

/** The order a round ran in: group indexes of the members that ran a trial that round. */
export interface RoundOrder {
  round: number;
  order: number[];
}

export interface InterleavedCellHooks {
  signal?: AbortSignal;
  /** Called as each trial begins (round is 1-based). */
  onTrial?: (member: number, round: number) => void;
  onProgress?: (
    member: number,
    round: number,
    completed: number,
    requested: number | null,
    elapsedSec: number,
  ) => void;
  /** A member's hooks around each trial's measured phase (e.g. its interference sampler). */
  measureHooks?: (member: number) => Pick<RunCellHooks, 'onMeasureStart' | 'onMeasureEnd'>;
}

export interface InterleavedCell {
  /** Each member's trials in round order: trial i ran in round i + 1. */
  trials: Map<number, CellResult[]>;
  /** A member whose trial threw: the message. It ran no further trial of the cell. */
  failures: Map<number, string>;
  rounds: RoundOrder[];
}

/**
 * Draws round orders: a uniformly random permutation per round (Fisher-Yates), from a PRNG seeded
 * once, so a seed gives the same schedule every time and a group's rounds are independent draws.
 */
export class RoundShuffler {
  private readonly random: () => number;
  constructor(seed: number) {
    this.random = seededRandom(seed);
  }

  order(members: readonly number[]): number[] {
    const out = [...members];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}

/**
 * Runs `trials` rounds of one cell over the members. A member whose trial comes back incomplete
 * (its server went away) or throws runs no further round of the cell; the others go on. An abort
 * ends the cell after the trial in progress (which comes back incomplete, and is kept).
 */
export async function runInterleavedCell(
  members: readonly InterleavedMember[],
  options: CellOptions,
  trials: number,
  shuffler: RoundShuffler,
  hooks: InterleavedCellHooks = {},
): Promise<InterleavedCell> {
  const byIndex = new Map(members.map((m) => [m.index, m]));
  const results = new Map<number, CellResult[]>(members.map((m) => [m.index, []]));
  const failures = new Map<number, string>();
  const stopped = new Set<number>();
  const rounds: RoundOrder[] = [];
  for (let round = 1; round <= trials; round++) {
    const active = members.map((m) => m.index).filter((i) => !stopped.has(i));
    if (active.length === 0 || hooks.signal?.aborted) break;
    const ran: number[] = [];
    for (const index of shuffler.order(active)) {
      if (hooks.signal?.aborted) break;
      ran.push(index);
      hooks.onTrial?.(index, round);
      try {
        const r = await byIndex.get(index)!.session.runCell(options, {
          ...(hooks.signal ? { signal: hooks.signal } : {}),
          ...hooks.measureHooks?.(index),
          onProgress: (done, requested, elapsed) =>
            hooks.onProgress?.(index, round, done, requested, elapsed),
        });
        results.get(index)!.push(r);
        if (r.incomplete) stopped.add(index);
      } catch (err) {
        failures.set(index, (err as Error).message);
        stopped.add(index);
      }
    }
    if (ran.length > 0) rounds.push({ round, order: ran });
  }
  return { trials: results, failures, rounds };
}

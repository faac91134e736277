import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  BenchSession,
  type CellOptions,
  DEFAULT_CELL_OPTIONS,
  DEFAULT_TARGET,
  type LaunchedServer,
  RoundShuffler,
  runInterleavedCell,
  startServer,
  stopServers,
} from '../dist/index.js';

// Interleaved trials against real throwaway redis-servers (never 6379); the schedule's randomness
// is checked without servers.

const servers: LaunchedServer[] = [];
const sessions: BenchSession[] = [];

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close().catch(() => {})));
});
afterAll(() => stopServers(servers.splice(0)));

async function member(index: number) {
  const server = await startServer();
  servers.push(server);
  expect(server.port).not.toBe(6379);
  const session = await BenchSession.open({ ...DEFAULT_TARGET, host: server.host, port: server.port });
  sessions.push(session);
  return { index, session, server };
}

const SET: CellOptions = {
  ...DEFAULT_CELL_OPTIONS,
  test: 'SET',
  requests: 2000,
  connections: 2,
  keyspaceSize: 100,
};

describe('RoundShuffler', () => {
  it('draws the same orders from the same seed, and other orders from another', () => {
    const draw = (seed: number) => {
      const s = new RoundShuffler(seed);
      return Array.from({ length: 8 }, () => s.order([0, 1, 2]));
    };
    expect(draw(11)).toEqual(draw(11));
    expect(draw(11)).not.toEqual(draw(12));
  });

  it('gives a permutation of the members each round, each member first about as often as the others', () => {
    const s = new RoundShuffler(3);
    const first = [0, 0, 0, 0];
    const rounds = 4000;
    for (let r = 0; r < rounds; r++) {
      const order = s.order([0, 1, 2, 3]);
      expect([...order].sort()).toEqual([0, 1, 2, 3]);
      first[order[0]!]!++;
    }
    // 1,000 expected each; a binomial 99.99% band is about ±120.
    for (const n of first) expect(Math.abs(n - rounds / 4)).toBeLessThan(150);
  });

  it('varies the order of two members across rounds', () => {
    const s = new RoundShuffler(5);
    const orders = Array.from({ length: 10 }, () => s.order([0, 1]).join(''));
    expect(new Set(orders)).toEqual(new Set(['01', '10']));
  });

  it('leaves out members that are no longer in the list', () => {
    expect(new RoundShuffler(1).order([4])).toEqual([4]);
    expect(new RoundShuffler(1).order([])).toEqual([]);
  });
});

describe('runInterleavedCell', () => {
  it('runs trial r against every member in round r, in the recorded order, each on its own server', async () => {
    const a = await member(0);
    const b = await member(1);
    const seen: string[] = [];
    const cell = await runInterleavedCell([a, b], SET, 3, new RoundShuffler(9), {
      onTrial: (m, round) => seen.push(`${round}:${m}`),
    });
    expect(cell.failures.size).toBe(0);
    expect(cell.rounds.map((r) => r.round)).toEqual([1, 2, 3]);
    for (const r of cell.rounds) expect([...r.order].sort()).toEqual([0, 1]);
    // The trials began in exactly the recorded order, round after round.
    expect(seen).toEqual(cell.rounds.flatMap((r) => r.order.map((m) => `${r.round}:${m}`)));
    // The orders are the shuffler's: the same seed reproduces them.
    const again = new RoundShuffler(9);
    expect(cell.rounds.map((r) => r.order)).toEqual(cell.rounds.map(() => again.order([0, 1])));
    for (const m of [a, b]) {
      const trials = cell.trials.get(m.index)!;
      expect(trials).toHaveLength(3);
      for (const t of trials) expect(t.completed).toBe(2000);
      // Each member's server answered its 3 trials and nobody else's.
      const calls = Number(
        /cmdstat_set:calls=(\d+)/.exec(await m.session.control.redis.info('commandstats'))![1],
      );
      expect(calls).toBe(3 * 2000);
    }
  });

  it('a member whose server goes away runs no further round; the other goes on', async () => {
    const a = await member(0);
    const b = await member(1);
    const cell = await runInterleavedCell([a, b], SET, 3, new RoundShuffler(2), {
      // As member 1's second trial begins, its server is gone.
      onTrial: (m, round) => {
        if (m === 1 && round === 2) void b.server.stop();
      },
    });
    expect(cell.trials.get(0)).toHaveLength(3);
    const lost = cell.trials.get(1)!;
    // Its second trial either failed to start (a failure) or came back incomplete: nothing after it.
    expect(lost.length === 1 ? cell.failures.has(1) : lost[1]!.incomplete).toBe(true);
    expect(lost.length).toBeLessThanOrEqual(2);
    expect(cell.rounds.find((r) => r.round === 3)!.order).toEqual([0]);
  });

  it('an aborted signal ends the cell: no round starts after it', async () => {
    const a = await member(0);
    const controller = new AbortController();
    const cell = await runInterleavedCell([a], SET, 3, new RoundShuffler(1), {
      signal: controller.signal,
      onTrial: (_m, round) => {
        if (round === 2) controller.abort();
      },
    });
    expect(cell.rounds.map((r) => r.round)).toEqual([1, 2]);
    expect(cell.trials.get(0)!.length).toBeLessThanOrEqual(2);
  });
});

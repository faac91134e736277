import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BenchSession,
  type CellOptions,
  type CellResult,
  DEFAULT_CELL_OPTIONS,
  DEFAULT_TARGET,
  type LaunchedServer,
  type LocalCluster,
  parseObjectives,
  runSloSearch,
  startLocalCluster,
  startServer,
} from '../dist/index.js';

// A cell's hit ratio is the measured window's: of the GETs sent after measuring began, the share
// that found their key. Bug: an open-loop GET search without --preload once wrote a negative
// hitRatio. Its steps warm up before measuring, and the nils of the warm-up's requests still in
// flight when measuring began were counted, while those requests were not among the completions:
// with every GET a miss, nils exceeded completions.

let server: LaunchedServer;
let session: BenchSession;

beforeAll(async () => {
  server = await startServer();
  session = await BenchSession.open({ ...DEFAULT_TARGET, host: server.host, port: server.port });
});

afterAll(async () => {
  await session?.close();
  await server?.stop();
});

const get: CellOptions = {
  ...DEFAULT_CELL_OPTIONS,
  test: 'GET',
  keyspaceSize: 1_000_000,
  connections: 8,
  // 128 requests in flight at any moment past capacity, so some are in flight as measuring begins.
  pipelineDepth: 16,
  pipelineMode: 'window',
  requests: undefined,
  durationSec: 0.5,
  warmupSec: 0.3,
};

/** The hit ratio must be the measured window's hits over its completions, within [0, 1]. */
function expectWindowRatio(r: CellResult): void {
  expect(r.incomplete).toBe(false);
  expect(r.completed).toBeGreaterThan(0);
  expect(r.nils).toBeLessThanOrEqual(r.completed);
  expect(r.hitRatio).not.toBeNull();
  expect(r.hitRatio!).toBeGreaterThanOrEqual(0);
  expect(r.hitRatio!).toBeLessThanOrEqual(1);
  expect(r.hitRatio).toBe(Math.round(((r.completed - r.nils) / r.completed) * 1e6) / 1e6);
}

describe('hitRatio counts the measured window only', () => {
  it('open loop past capacity after a warm-up, nothing preloaded: every measured GET missed, ratio 0', async () => {
    // Far more than one client thread can send: the pipelines stay full.
    const r = await session.runCell({ ...get, rateOpsPerSec: 5_000_000 });
    expectWindowRatio(r);
    expect(r.nils).toBe(r.completed);
    expect(r.hitRatio).toBe(0);
  });

  it('closed loop after a warm-up, nothing preloaded: ratio 0', async () => {
    const r = await session.runCell(get);
    expectWindowRatio(r);
    expect(r.nils).toBe(r.completed);
    expect(r.hitRatio).toBe(0);
  });

  it('half the key space preloaded: about half hit, and the ratio is the window hits / completions', async () => {
    const keys = 2_000;
    await session.runCell({ ...get, keyspaceSize: keys / 2, preload: true, durationSec: 0.1, warmupSec: 0 });
    const r = await session.runCell({ ...get, keyspaceSize: keys, rateOpsPerSec: 5_000_000 });
    expectWindowRatio(r);
    expect(r.hitRatio!).toBeGreaterThan(0.4);
    expect(r.hitRatio!).toBeLessThan(0.6);
    await session.cleanup();
  });

  it('a search for GET at p99<=1ms without a preload records ratio 0 for the trial it keeps', async () => {
    const { search, trial } = await runSloSearch(
      session,
      { ...get, connections: 50, pipelineDepth: 1, pipelineMode: 'batch' },
      // A small budget: the ratio, not the answer, is under test.
      { objectives: parseObjectives('p99<=1ms'), budgetSec: 6 },
    );
    expect(search.steps.length).toBeGreaterThan(0);
    expectWindowRatio(trial);
    expect(trial.hitRatio).toBe(0);
  });
});

describe('hitRatio in cluster mode counts the measured window only', () => {
  let cluster: LocalCluster;
  let clusterSession: BenchSession;

  beforeAll(async () => {
    cluster = await startLocalCluster({ primaries: 3 });
    clusterSession = await BenchSession.open({
      ...DEFAULT_TARGET,
      port: cluster.nodes[0]!.port,
      cluster: true,
    });
  });

  afterAll(async () => {
    await clusterSession?.close();
    await cluster?.stop();
  });

  it('open loop past capacity after a warm-up, nothing preloaded: ratio 0', async () => {
    // Each node socket keeps P in flight: 8 x 16 x 3 primaries as measuring begins.
    const r = await clusterSession.runCell({ ...get, rateOpsPerSec: 5_000_000 });
    expectWindowRatio(r);
    expect(r.nils).toBe(r.completed);
    expect(r.hitRatio).toBe(0);
  });
});

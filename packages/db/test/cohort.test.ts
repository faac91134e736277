import type { ResultV1 } from '@redis-benchdb/result';
import { withOwnHistograms } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import {
  type BenchDb,
  cohort,
  explainCohort,
  explainSimilar,
  explainWorkloadCells,
  headlineCells,
  ingest,
  iterateWorkloadCells,
  RankIndex,
  rankIn,
  resultRanks,
  retract,
  signRetraction,
  similarResults,
  workloadDefinition,
} from '../src/index.js';
import { body, key, NOW, otherKey, tempDb, tempPath, variant, vouchedDb, withPipeline } from './fixtures.js';

/** Every cell's throughput (median, interval, trials) times `f`: the same workload, run faster or slower. */
function scaled(f: number) {
  return (r: ResultV1) => {
    for (const c of r.cells) {
      c.opsPerSec = {
        ...c.opsPerSec,
        median: c.opsPerSec.median * f,
        ci95Low: c.opsPerSec.ci95Low * f,
        ci95High: c.opsPerSec.ci95High * f,
      };
      for (const t of c.trials) t.opsPerSec *= f;
    }
  };
}

const cpu = (model: string) => (r: ResultV1) => {
  r.environment.client.cpu.model = model;
};
const version = (v: string) => (r: ResultV1) => {
  if (r.environment.server) r.environment.server.version = v;
};
const all =
  (...edits: ((r: ResultV1) => void)[]) =>
  (r: ResultV1) => {
    for (const e of edits) e(r);
  };

let clock = 0;
function store(db: BenchDb, n: number, edit: (r: ResultV1) => void, k = key): string {
  clock += 1000;
  // Histograms of their own: copies of one example's measurements would be refused (copies.ts).
  return ingest(db, body(withOwnHistograms(variant(n, edit), n), k), { now: new Date(NOW.getTime() + clock) })
    .id;
}

/**
 * Seven results of the example's SET and GET, at known speeds: two tie, one is signed by another
 * key, one is retracted, one's GET replied mostly errors, one ran another workload (pipeline 16).
 */
function filled() {
  const db = vouchedDb();
  const ids = {
    slow: store(db, 1, all(scaled(0.5), cpu('CPU A'))),
    tieA: store(db, 2, all(scaled(1), cpu('CPU A'))),
    tieB: store(db, 3, all(scaled(1), cpu('CPU B')), otherKey),
    fast: store(db, 4, all(scaled(1.5), cpu('CPU A'), version('7.2.5'))),
    gone: store(db, 5, all(scaled(1.6), cpu('CPU A'))),
    errors: store(
      db,
      6,
      all(scaled(1.2), cpu('CPU A'), (r) => {
        const get = r.cells.find((c) => c.label === 'GET')!;
        get.errorReplies = {
          count: 900,
          ratio: 0.9,
          successOpsPerSec: 10,
          example: 'OOM command not allowed',
        };
        r.warnings.push({ code: 'ERRORS', message: 'Most replies in this cell were errors.', cell: 'GET' });
      }),
    ),
    piped: store(
      db,
      7,
      all(cpu('CPU A'), (r) => withPipeline(r, 16)),
    ),
  };
  retract(db, signRetraction(ids.gone, key.privateKeyPem, new Date(NOW.getTime() + clock + 1)), {
    now: new Date(NOW.getTime() + clock + 2),
  });
  const getFp = variant(1).cells.find((c) => c.label === 'GET')!.workloadFingerprint;
  return { db, ids, getFp };
}

describe('a cohort', () => {
  it('holds every listed result that ran the workload, slowest first, with its distinct keys', () => {
    const { db, ids, getFp } = filled();
    const c = cohort(db, getFp);
    // Not the retracted one, not the one whose GET was mostly errors, not the pipelined one.
    expect(c.members.map((m) => m.resultId)).toEqual([ids.slow, ...[ids.tieA, ids.tieB].sort(), ids.fast]);
    expect(c.members.map((m) => m.opsPerSec)).toEqual([0.5, 1, 1, 1.5].map((f) => 131204 * f));
    expect(c.distinctSigners).toBe(2);
    expect(cohort(db, getFp, { cpuModel: 'CPU A' }).members.map((m) => m.resultId)).toEqual([
      ids.slow,
      ids.tieA,
      ids.fast,
    ]);
    expect(cohort(db, 'sha256:none').members).toEqual([]);
  });

  it('ranks a member among the others, ties counting half', () => {
    const { db, ids, getFp } = filled();
    const c = cohort(db, getFp);
    expect(rankIn(c, ids.slow)).toMatchObject({ size: 4, slower: 0, equal: 0, faster: 3, percentile: 0 });
    // Faster than slow, as fast as tieB, slower than fast: (1 + 1/2) / 3.
    expect(rankIn(c, ids.tieA)).toMatchObject({ slower: 1, equal: 1, faster: 1, percentile: 50 });
    expect(rankIn(c, ids.fast)).toMatchObject({ slower: 3, percentile: 100, distinctSigners: 2 });
    expect(rankIn(c, ids.gone)).toBeNull();
    const alone = cohort(db, getFp, { cpuModel: 'CPU B' });
    expect(rankIn(alone, ids.tieB)).toMatchObject({ size: 1, percentile: null });
  });

  it("ranks a result's headline cells overall and among its CPU model", () => {
    const { db, ids } = filled();
    const ranks = resultRanks(db, ids.tieA, { sameCpu: true });
    expect(ranks.map((r) => r.label)).toEqual(['GET', 'SET']);
    expect(ranks[0]!.overall).toMatchObject({ size: 4, percentile: 50 });
    // Among CPU A only: slow, tieA, fast.
    expect(ranks[0]!.sameCpu).toMatchObject({ size: 3, slower: 1, faster: 1, percentile: 50 });
    // The errors result's SET still counts: only its GET replied mostly errors.
    expect(ranks[1]!.overall).toMatchObject({ size: 5, slower: 1, equal: 1, faster: 2 });
    expect(resultRanks(db, ids.errors).map((r) => r.label)).toEqual(['SET']);
    expect(resultRanks(db, ids.gone)).toEqual([]);
    expect(resultRanks(db, ids.piped).map((r) => r.label)).toEqual(['SET P16', 'GET P16']);
    expect(resultRanks(db, ids.piped)[0]!.overall).toMatchObject({ size: 1, percentile: null });
  });

  it('counts the same ranks as it would find in the cohort read whole', () => {
    const { db, ids, getFp } = filled();
    const all = cohort(db, getFp);
    for (const id of Object.values(ids)) {
      const get = resultRanks(db, id, { sameCpu: true }).find((r) => r.workloadFingerprint === getFp);
      expect(get?.overall ?? null).toEqual(rankIn(all, id));
      const cpuModel = all.members.find((m) => m.resultId === id)?.cpuModel;
      if (get && cpuModel) expect(get.sameCpu).toEqual(rankIn(cohort(db, getFp, { cpuModel }), id));
    }
  });

  it('RankIndex: the ranks resultRanks counts, kept in memory as results arrive, after a retraction and another writer', () => {
    const path = tempPath();
    const db = vouchedDb(path);
    const index = new RankIndex(db);
    const ids: string[] = [];
    const same = () => {
      for (const id of ids)
        expect(index.ranks(id, { sameCpu: true }), id).toEqual(resultRanks(db, id, { sameCpu: true }));
    };
    // Each added to cohorts the index already holds (the first rank reads them): inserted, not re-read.
    const edits = [
      all(scaled(1), cpu('CPU A')),
      all(scaled(0.5), cpu('CPU A')),
      all(scaled(1), cpu('CPU B')),
      all(scaled(1), cpu('CPU A')),
      all(scaled(1.5), cpu('CPU B'), version('7.2.5')),
      all(cpu('CPU A'), (r) => withPipeline(r, 16)),
      all(scaled(1.2), cpu('CPU A'), (r) => {
        r.cells.find((c) => c.label === 'GET')!.errorReplies = {
          count: 900,
          ratio: 0.9,
          successOpsPerSec: 10,
          example: 'OOM command not allowed',
        };
        r.warnings.push({ code: 'ERRORS', message: 'Most replies in this cell were errors.', cell: 'GET' });
      }),
    ];
    edits.forEach((edit, i) => {
      const id = store(db, 100 + i, edit, i === 2 ? otherKey : key);
      ids.push(id);
      index.added(id);
      // A second notice of the same result (or a cohort read after its commit) counts it once.
      index.added(id);
      same();
    });
    expect(index.ranks(ids[0]!)[0]!.overall).toMatchObject({ size: 5, distinctSigners: 2 });
    retract(db, signRetraction(ids[4]!, key.privateKeyPem, new Date(NOW.getTime() + clock + 1)), {
      now: new Date(NOW.getTime() + clock + 2),
    });
    index.reset();
    same();
    // Another connection writes (db:build on the same file): the index reads the cohorts afresh.
    const other = tempDb(path);
    ids.push(store(other, 120, all(scaled(2), cpu('CPU A'))));
    same();
    expect(index.ranks(ids.at(-1)!)[0]!.overall).toMatchObject({ faster: 0 });
  });

  it('picks GET and SET as headline cells, else the first cells with a workload fingerprint', () => {
    const c = (label: string, fp: string | null = 'sha256:x') => ({ label, workloadFingerprint: fp });
    expect(headlineCells([c('SET'), c('GET P4'), c('GET')]).map((x) => x.label)).toEqual(['GET', 'SET']);
    expect(headlineCells([c('HSET', null), c('LPUSH'), c('RPUSH'), c('SADD')]).map((x) => x.label)).toEqual([
      'LPUSH',
      'RPUSH',
    ]);
    expect(headlineCells([c('GET', null)])).toEqual([]);
  });

  it('reads indexes only: no cell histogram, no document', () => {
    const { db } = filled();
    expect(explainCohort(db)).toMatch(/SEARCH c USING COVERING INDEX cells_cohort \(workload_fingerprint=\?/);
    expect(explainCohort(db)).toMatch(/SEARCH r USING COVERING INDEX results_site_by_id \(id=\?/);
    // A cell's warnings by its result, not every ERRORS warning in the database.
    expect(explainCohort(db)).toMatch(
      /SEARCH w USING COVERING INDEX warnings_by_cell \(result_id=\? AND cell_label=\? AND code=\?\)/,
    );
    expect(explainWorkloadCells(db)).toMatch(
      /SEARCH w USING COVERING INDEX warnings_by_cell \(result_id=\? AND cell_label=\? AND code=\?\)/,
    );
    expect(explainWorkloadCells(db)).toMatch(/COVERING INDEX cells_cohort/);
    expect(explainWorkloadCells(db)).toMatch(/COVERING INDEX results_site_by_id/);
    expect(explainWorkloadCells(db)).not.toMatch(/TEMP B-TREE/);
    const similar = explainSimilar(db);
    expect(similar['machine and version']).toMatch(/COVERING INDEX results_by_machine_version/);
    expect(similar.machine).toMatch(/COVERING INDEX results_by_machine \(machine_key=\?/);
    expect(similar.version).toMatch(/COVERING INDEX results_by_version_machine/);
    for (const plan of Object.values(similar)) expect(plan).not.toMatch(/TEMP B-TREE/);
  });
});

describe('similar results', () => {
  it('lists the same machine kind and version first, then the same kind, then the same version, newest first', () => {
    const { db, ids } = filled();
    const similar = similarResults(db, ids.tieA);
    expect(similar.map((s) => [s.id, s.shares])).toEqual([
      [ids.piped, 'machine and version'],
      [ids.errors, 'machine and version'],
      [ids.slow, 'machine and version'],
      [ids.fast, 'machine'],
      [ids.tieB, 'version'],
    ]);
    expect(similar.map((s) => s.id)).not.toContain(ids.gone);
    expect(similarResults(db, ids.tieA, 2).map((s) => s.id)).toEqual([ids.piped, ids.errors]);
    expect(similarResults(db, ids.gone)).toEqual([]);
  });
});

describe('similar results across machine kinds', () => {
  it('a CPU model name shared by two machine kinds is no common ground: another L2 is another machine', () => {
    const db = vouchedDb();
    const l2 = (kib: number) => (r: ResultV1) => {
      r.environment.client.cpu.cacheL2KiB = kib;
    };
    const a = store(db, 1, all(cpu('AMD EPYC'), l2(512)));
    const sameKind = store(db, 2, all(cpu('AMD EPYC'), l2(512), version('7.2.5')));
    const otherKind = store(db, 3, all(cpu('AMD EPYC'), l2(1024), version('7.2.5')));
    const otherKindSameVersion = store(db, 4, all(cpu('AMD EPYC'), l2(1024)));
    const similar = similarResults(db, a);
    expect(similar.map((s) => [s.id, s.shares])).toEqual([
      [sameKind, 'machine'],
      [otherKindSameVersion, 'version'],
    ]);
    expect(similar.map((s) => s.id)).not.toContain(otherKind);
    // The version neighbour names its machine kind, caches included, not only the shared CPU name.
    expect(similar[1]!.machineLabel).toContain('L2 1 MiB');
  });
});

describe('workload cells', () => {
  it('walk every comparable cell by workload, and say what each workload is', () => {
    const { db, ids, getFp } = filled();
    const cells = [...iterateWorkloadCells(db)];
    const get = cells.filter((c) => c.workloadFingerprint === getFp);
    expect(get.map((c) => c.resultId).sort()).toEqual([ids.slow, ids.tieA, ids.tieB, ids.fast].sort());
    expect(cells.map((c) => c.resultId)).not.toContain(ids.gone);
    expect(get[0]).toMatchObject({ label: 'GET', p99Us: expect.any(Number), unstable: expect.any(Number) });
    const def = workloadDefinition(db, getFp);
    expect(def).toMatchObject({ label: 'GET', workload: { test: 'GET', pipelineDepth: 1, connections: 50 } });
    expect(workloadDefinition(db, 'sha256:none')).toBeNull();
  });
});

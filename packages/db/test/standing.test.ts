import { generateSigningKey, type ResultV1, type SigningKey } from '@redis-benchdb/result';
import { remeasured, withOwnHistograms } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import {
  assignSigner,
  type BenchDb,
  cellsByWorkload,
  cohort,
  heldResults,
  ingest,
  openDatabase,
  PROJECT_SIGNER,
  RankIndex,
  rankIn,
  resultRanks,
  resultStandings,
  standingOf,
  standingsOfResults,
} from '../src/index.js';
import { body, fingerprintOf, key, NOW, suiteRun, tempDb, tempPath, variant } from './fixtures.js';

// Issue 39 item 2 in the database: the corroboration rule (packages/result corroboration.ts) read
// by every query that ranks, so a fresh key's forgery moves no other result's rank, and its own rank
// still answers its submitter.

const GET_FP = suiteRun().cells.find((c) => c.label === 'GET')!.workloadFingerprint;
const cpu = (model: string) => (r: ResultV1) => {
  r.environment.client.cpu.model = model;
};

let n = 0;
let clock = 0;
function store(db: BenchDb, factor: number, k: SigningKey, edit: (r: ResultV1) => void = () => {}): string {
  n++;
  clock += 1000;
  const r = withOwnHistograms(remeasured(variant(n, edit), factor), n);
  return ingest(db, body(r, k), { now: new Date(NOW.getTime() + clock) }).id;
}

/** Three project results of one machine kind, 2% apart: the anchor. */
function anchored() {
  const db = tempDb();
  assignSigner(db, PROJECT_SIGNER, [fingerprintOf(key)]);
  const project = [1, 1.02, 0.98].map((f) => store(db, f, key));
  return { db, project };
}

const ranksOf = (db: BenchDb, ids: readonly string[]) =>
  ids.map((id) => resultRanks(db, id, { sameCpu: true }));

describe('corroboration in the database', () => {
  it("judges named results within their kinds alone as every result's standings do (issue 42: one page's build)", () => {
    const { db, project } = anchored();
    const forged = store(db, 1.5, generateSigningKey());
    const honest = store(db, 1.01, generateSigningKey());
    const lone = store(db, 1, generateSigningKey(), cpu('Lone CPU 9000'));
    const all = resultStandings(db);
    // A second connection, as a build's page worker has: no standings read yet, so only those kinds are.
    const reader = openDatabase(db.path, { readonly: true });
    try {
      const some = standingsOfResults(reader, [forged, lone]);
      for (const id of [forged, lone, honest, ...project]) expect(some.get(id), id).toEqual(all.get(id));
      expect([forged, lone].map((id) => some.get(id)?.status)).toEqual(['outlier', 'provisional']);
    } finally {
      reader.close();
    }
  });

  it("holds a fresh key's x1.5 copy out of every cohort: no other rank moves, its own rank says it is an outlier", () => {
    const { db, project } = anchored();
    const before = ranksOf(db, project);
    const index = new RankIndex(db);
    index.ranks(project[0]!);
    const forged = store(db, 1.5, generateSigningKey());
    index.added(forged);
    expect(standingOf(db, forged)).toMatchObject({ status: 'outlier' });
    expect(heldResults(db)).toEqual([forged]);
    expect(cohort(db, GET_FP).members.map((m) => m.resultId)).not.toContain(forged);
    expect(ranksOf(db, project)).toEqual(before);
    // Its submitter still learns where it stands: first of four, counted as one more than the members.
    const own = resultRanks(db, forged, { sameCpu: true });
    expect(own[0]).toMatchObject({ held: 'OUTLIER', overall: { size: 4, faster: 0, slower: 3 } });
    expect(index.ranks(forged, { sameCpu: true })).toEqual(own);
    for (const id of project)
      expect(index.ranks(id, { sameCpu: true })).toEqual(resultRanks(db, id, { sameCpu: true }));
    // The site's cells carry the reason, for every view's "left out" list.
    expect(cellsByWorkload(db, [GET_FP]).find((c) => c.resultId === forged)?.held).toBe('OUTLIER');
  });

  it('four fresh keys forging the same move nothing either: they never vouch for each other', () => {
    const { db, project } = anchored();
    const before = ranksOf(db, project);
    const forged = [1, 2, 3, 4].map(() => store(db, 1.5, generateSigningKey()));
    expect(heldResults(db).sort()).toEqual([...forged].sort());
    expect(ranksOf(db, project)).toEqual(before);
  });

  it("admits another signer's result within the kind's spread, and the rank index follows", () => {
    const { db, project } = anchored();
    const index = new RankIndex(db);
    index.ranks(project[0]!);
    const honest = store(db, 1.01, generateSigningKey());
    index.added(honest);
    expect(standingOf(db, honest)).toEqual({ status: 'admitted', basis: 'corroborated' });
    expect(rankIn(cohort(db, GET_FP), honest)).not.toBeNull();
    expect(index.ranks(honest, { sameCpu: true })).toEqual(resultRanks(db, honest, { sameCpu: true }));
  });

  it('a lone key on a kind nobody else measured is provisional until a second signer agrees; then both count', () => {
    const path = tempPath();
    const db = tempDb(path);
    // Another kind's standings, read before: kept as they were when bob's kind is judged again.
    const elsewhere = store(db, 1, generateSigningKey(), cpu('another CPU'));
    const index = new RankIndex(db);
    const alice = store(db, 1, generateSigningKey(), cpu('CPU nobody else has'));
    index.added(alice);
    expect(standingOf(db, alice)).toEqual({ status: 'provisional', why: 'no-shared-workload' });
    expect(index.ranks(alice)[0]).toMatchObject({ held: 'PROVISIONAL', overall: { size: 1 } });
    const bob = store(db, 1.05, generateSigningKey(), cpu('CPU nobody else has'));
    // Bob vouches for alice: a standing changed, so the index reads its cohorts afresh.
    index.added(bob);
    expect(heldResults(db)).toEqual([elsewhere]);
    // Judged again for the stored result's kind alone: what a full read on another connection gives.
    expect(resultStandings(db)).toEqual(resultStandings(tempDb(path)));
    for (const id of [alice, bob]) {
      expect(index.ranks(id)).toEqual(resultRanks(db, id));
      expect(index.ranks(id)[0]).toMatchObject({ held: null, overall: { size: 2 } });
    }
  });
});

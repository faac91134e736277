import { remeasured } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import {
  cellsByWorkload,
  ingest,
  noiseDigests,
  repeatedEnvironments,
  repeatedMedians,
  repeatedMediansPlan,
  retract,
  signRetraction,
  siteQueryPlans,
} from '../src/index.js';
import { body, key, NOW, otherKey, otherRun, suiteRun, tempDb, variant, vouchedDb } from './fixtures.js';

// What the site's verdicts read of an environment's repeated results (issue 13 item 4).

const env = suiteRun().environment.fingerprint;
const [setFp, getFp] = suiteRun().cells.map((c) => c.workloadFingerprint) as [string, string];

describe("an environment's repeated results", () => {
  it("digests each result's noise evidence: a repeat in its environment changes it, another environment's does not (issue 42)", () => {
    const db = vouchedDb();
    const at = { now: NOW };
    const first = ingest(db, body(variant(1)), at).id;
    const elsewhere = ingest(
      db,
      body(
        remeasured(
          variant(7, (r) => (r.environment.fingerprint = `sha256:${'e'.repeat(64)}`)),
          3,
        ),
      ),
      at,
    ).id;
    const before = noiseDigests(db);
    expect(noiseDigests(db)).toEqual(before); // the same database, the same digests
    const repeat = ingest(db, body(remeasured(variant(2), 1.1)), at).id;
    const after = noiseDigests(db);
    expect(after.get(first)).not.toBe(before.get(first));
    expect(after.get(repeat)).toBe(after.get(first));
    expect(after.get(elsewhere)).toBe(before.get(elsewhere));
    retract(db, signRetraction(repeat, key.privateKeyPem, NOW), at);
    expect(noiseDigests(db).get(first)).toBe(before.get(first));
    expect(noiseDigests(db).has(repeat)).toBe(false);
  });

  it('gives each workload the medians of its unflagged cells, one per listed result that is not a copy', () => {
    const db = vouchedDb();
    const at = { now: NOW };
    ingest(db, body(variant(1)), at);
    ingest(db, body(remeasured(variant(2), 1.1)), at);
    ingest(db, body(otherRun(3), otherKey), at);
    // A copy (the same key's variant(1) again), a retracted run, a run whose GET ran on a busy host,
    // and a run of another environment: none of them counts for GET.
    ingest(db, body(variant(4)), at);
    const gone = ingest(db, body(remeasured(variant(5), 0.5)), at).id;
    retract(db, signRetraction(gone, key.privateKeyPem, NOW), at);
    ingest(
      db,
      body(
        remeasured(
          variant(6, (r) =>
            r.warnings.push({
              code: 'BUSY_HOST',
              message: 'Other processes used 47% of the CPUs.',
              cell: 'GET',
            }),
          ),
          2,
        ),
      ),
      at,
    );
    ingest(
      db,
      body(
        remeasured(
          variant(7, (r) => (r.environment.fingerprint = `sha256:${'e'.repeat(64)}`)),
          3,
        ),
      ),
      at,
    );
    const medians = repeatedMedians(db, env);
    const get = suiteRun().cells[1]!.opsPerSec.median;
    expect(medians.get(getFp)!.medians.sort((a, b) => a - b)).toEqual(
      [get, get * 1.1, get * (1 + 3 / 1000)].sort((a, b) => a - b).map((x) => expect.closeTo(x, 6)),
    );
    // The busy host was GET's only: its SET counts.
    expect(medians.get(setFp)).toMatchObject({ label: 'SET', medians: expect.any(Array) });
    expect(medians.get(setFp)!.medians).toHaveLength(4);
    expect(repeatedMedians(db, `sha256:${'e'.repeat(64)}`).get(getFp)!.medians).toHaveLength(1);
    // Only this environment has repeats: runs 1, 2, 3 and 6 (the copy and the retracted run are out).
    expect(repeatedEnvironments(db)).toEqual([{ environmentFingerprint: env, results: 4 }]);
  });

  it('is answered from indexes, never reading a document', () => {
    const plan = repeatedMediansPlan(tempDb());
    expect(plan).toMatch(/USING COVERING INDEX cell_measurements_noise/);
    expect(plan).toMatch(/USING COVERING INDEX results_site_by_id/);
  });

  it("gives the headline each cell's key, copy mark and no-verdict warnings, still from covering indexes", () => {
    const db = tempDb();
    const first = ingest(db, body(variant(1)), { now: NOW }).id;
    const copy = ingest(db, body(variant(2)), { now: NOW }).id;
    const cells = cellsByWorkload(db, [getFp]);
    expect(cells.map((c) => [c.resultId, c.keyFingerprint, c.copyOf, c.noVerdict])).toEqual(
      expect.arrayContaining([
        [first, expect.stringMatching(/^sha256:/), null, null],
        [copy, expect.stringMatching(/^sha256:/), first, null],
      ]),
    );
    expect(siteQueryPlans(db).cells).toMatch(/COVERING INDEX results_site_by_id/);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingest, openDatabase } from '@redis-benchdb/db';
import { body, remeasured, suiteRun, variant } from '@redis-benchdb/testing';
import { afterAll, describe, expect, it } from 'vitest';

// The script the default between-run CV is measured with, on a real SQLite file filled through ingest().

const script = fileURLToPath(new URL('../between-run-noise.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'rbdb-noise-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (...argv: string[]) => spawnSync(process.execPath, [script, ...argv], { encoding: 'utf8' });

describe('between-run-noise', () => {
  it("gives each cell's CV across an environment's repeated results", () => {
    const dbPath = join(dir, 'benchdb.sqlite');
    const db = openDatabase(dbPath);
    // Three runs of one setup at 0.9, 1 and 1.1 times the fixture's figures: CV 10% in every cell.
    for (const [n, f] of [
      [1, 1],
      [2, 0.9],
      [3, 1.1],
    ] as const)
      ingest(db, body(f === 1 ? variant(n) : remeasured(variant(n), f)));
    db.close();
    const out = run('--db', dbPath, '--json');
    expect(out.status, out.stderr).toBe(0);
    const { environments } = JSON.parse(out.stdout);
    expect(environments).toHaveLength(1);
    expect(environments[0]).toMatchObject({
      environmentFingerprint: suiteRun().environment.fingerprint,
      results: 3,
    });
    expect(environments[0].cells.map((c: { label: string }) => c.label).sort()).toEqual(['GET', 'SET']);
    for (const c of environments[0].cells) expect(c.cv).toBeCloseTo(0.1, 6);
    expect(run('--db', dbPath).stdout).toMatch(
      /3 results; per-cell CV median 10\.0%, p90 10\.0%, max 10\.0%/,
    );
  });

  it('says what is wrong with a missing database', () => {
    const out = run('--db', join(dir, 'nope.sqlite'));
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/no database at .*nope\.sqlite/);
  });
});

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// The script imports the built packages, so the test reads the database the same way.
import { count, exportResults, openDatabase } from '@redis-benchdb/db';
import {
  decodeHistogram,
  type EnvelopeV1,
  type ResultV1,
  summarizeHistogram,
  validateResult,
  verifyEnvelope,
  workloadFingerprint,
} from '@redis-benchdb/result';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const script = join(root, 'scripts/gen-synthetic-db.mjs');
const COUNT = 20;

function generate(...argv: string[]) {
  return spawnSync(process.execPath, [script, ...argv], { cwd: root, encoding: 'utf8' });
}

describe('gen-synthetic-db', () => {
  let dir: string;
  let dbPath: string;
  let results: ResultV1[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rbdb-synthetic-'));
    dbPath = join(dir, 'synthetic.sqlite');
    const run = generate('--count', String(COUNT), '--seed', '7', '--out', dbPath, '--json');
    expect(run.status, run.stderr).toBe(0);
    const db = openDatabase(dbPath, { readonly: true });
    try {
      expect(count(db).results).toBe(COUNT);
      results = [...exportResults(db)].map((r) => {
        const verified = verifyEnvelope(r.envelope as EnvelopeV1);
        if (!verified.ok) throw new Error(verified.message);
        return verified.result;
      });
    } finally {
      db.close();
    }
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stores every result, each a valid signed result.v1 of the standard-v1 suite', () => {
    expect(results).toHaveLength(COUNT);
    for (const r of results) {
      expect(validateResult(r).ok).toBe(true);
      expect(r.suite?.id).toBe('standard-v1');
      expect(r.cells.length).toBe(r.suite?.profile === 'full' ? 43 : 30);
      for (const c of r.cells) expect(c.trials).toHaveLength(3);
    }
  });

  it("summarises each cell's merged histogram as the runner would", () => {
    for (const c of results.flatMap((r) => r.cells)) {
      const h = decodeHistogram(c.histogram);
      expect(summarizeHistogram(h)).toEqual(c.latencyUs);
      h.destroy();
    }
  });

  it('marks every result as synthetic', () => {
    for (const r of results) {
      expect(r.environment.client.cpu.model).toMatch(/^SYNTHETIC /);
      expect(r.runner.version).toMatch(/synthetic/);
    }
  });

  it('gives a cell the same workload fingerprint in every result, as real runs do', () => {
    const byLabel = new Map<string, Set<string>>();
    for (const r of results)
      for (const c of r.cells) {
        expect(c.workloadFingerprint).toBe(workloadFingerprint(c.workload));
        byLabel.set(c.label, (byLabel.get(c.label) ?? new Set()).add(c.workloadFingerprint));
      }
    expect(byLabel.size).toBeGreaterThanOrEqual(30);
    for (const [label, fingerprints] of byLabel) expect([label, fingerprints.size]).toEqual([label, 1]);
  });

  it('refuses an --out inside data/, and writes nothing there', () => {
    const target = join(root, 'data', 'synthetic-test.sqlite');
    const run = generate('--count', '1', '--out', target);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/refusing --out .*data\//);
    expect(existsSync(target)).toBe(false);
  });

  it('--help says how to use it; an unknown option says what was wrong and where to look', () => {
    const help = generate('--help');
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('--count N');
    expect(help.stdout).toMatch(/refused/);
    // The example it prints gives both required options.
    const example = help.stdout.match(/^ {2}(node scripts\/gen-synthetic-db\.mjs .*)$/m)?.[1];
    expect(example).toMatch(/--count \d+ --out \S+$/);
    const wrong = generate('--cont', '3');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/gen-synthetic-db: .*'--cont'.*; see --help/);
  });
});

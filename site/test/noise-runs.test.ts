// Issue 13's between-run noise, on the real site with real results: the five quiet and two hogged
// runs of `pnpm bench:noise --quiet-runs 5 --hog-runs 2` (docs/BENCHMARKS.md, "Between-run noise"),
// made by the runner on the project's 2-vCPU VM on 2026-11-24 and kept as they were signed
// (fixtures/noise-runs/). They are ingested into a fresh SQLite file, the site is built from it,
// and Chromium reads the compare pages. Runs of one setup must never read "faster" or "slower";
// the hogged runs must be flagged in every cell and judged in none.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingest, openDatabase } from '@redis-benchdb/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedSite, serveBuiltSite } from './served.js';

const fixtures = fileURLToPath(new URL('./fixtures/noise-runs/', import.meta.url));
const ids = new Map<string, string>();
let site: ServedSite;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-noise-runs-'));
  const dbPath = join(dir, 'benchdb.sqlite');
  const db = openDatabase(dbPath);
  try {
    for (const f of readdirSync(fixtures).filter((f) => f.endsWith('.json')))
      ids.set(f.replace(/\.0\.json$/, ''), ingest(db, readFileSync(join(fixtures, f), 'utf8')).id);
  } finally {
    db.close();
  }
  site = await serveBuiltSite(dir, dbPath);
}, 600_000);

afterAll(() => site?.close());

/** The compare page of two runs, once its script has drawn the table: each cell's verdict and rule. */
async function compare(a: string, b: string) {
  const r = [ids.get(a)!, ids.get(b)!].map((id) => id.slice(0, 12)).join(',');
  const { page, errors } = await site.open(`/compare/?r=${r}`);
  await page.waitForSelector('table.compare-cells');
  const rows = await page.locator('table.compare-cells tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({
      cell: tr.querySelector('td')?.textContent ?? '',
      verdict: tr.querySelector('.verdict')?.textContent ?? '',
      rule: tr.querySelector('.verdict-rule')?.textContent ?? '',
    })),
  );
  await page.context().close();
  return { errors, rows };
}

describe('five quiet runs and two hogged runs of the quick suite, compared on the built site', () => {
  it('holds the seven runs', () => {
    expect([...ids.keys()].sort()).toEqual([
      'hog-1',
      'hog-2',
      'quiet-1',
      'quiet-2',
      'quiet-3',
      'quiet-4',
      'quiet-5',
    ]);
  });

  // Every compare page of the seven runs in Chromium: 32 s on a loaded 2-core host, so its own timeout
  // over the tier's minute (vitest.config.ts).
  it('two quiet runs of one setup never read faster or slower, in any cell, and some cells were judged', async () => {
    let judged = 0;
    for (const [a, b] of [
      ['quiet-1', 'quiet-2'],
      ['quiet-1', 'quiet-5'],
      ['quiet-2', 'quiet-4'],
      ['quiet-3', 'quiet-5'],
    ] as const) {
      const { errors, rows } = await compare(a, b);
      expect(rows.length, `${a} vs ${b}`).toBe(30);
      for (const row of rows)
        expect(row.verdict, `${a} vs ${b}, ${row.cell}: ${row.rule}`).toBe('no verdict');
      // Not silent only because every cell is flagged: the noise rules decided some of them.
      judged += rows.filter((r) => /within between-run noise|intervals overlap/.test(r.rule)).length;
      expect(errors).toEqual([]);
    }
    expect(judged).toBeGreaterThan(0);
  }, 300_000);

  it('a hogged run is flagged BUSY_HOST in every cell and gets no verdict, though it ran at half the speed', async () => {
    for (const hog of ['hog-1', 'hog-2']) {
      const { errors, rows } = await compare('quiet-3', hog);
      expect(rows.length).toBe(30);
      for (const row of rows) {
        expect(row.verdict, `${hog}, ${row.cell}`).toBe('no verdict');
        expect(row.rule, `${hog}, ${row.cell}`).toMatch(/BUSY_HOST/);
      }
      expect(errors).toEqual([]);
    }
  });
});

// A result whose cells ran on a busy host shows it on its page: the BUSY_HOST and CPU_STEAL cell
// warnings as badges in the cell table (the warning, with its figures, as the badge's title) and
// in the list of cell warnings; DRIFT among the run's warnings.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingest, openDatabase } from '@redis-benchdb/db';
import { generateSigningKey, signResult } from '@redis-benchdb/result';
import { afterAll, expect, it } from 'vitest';
import { buildSite } from './build.js';
import { sweepResult } from './fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'rbdb-site-interference-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BUSY =
  "Other processes used 47% of this host's CPU time while this cell was measured (threshold 15%), run queue mean 3.2 (max 6) on 2 CPUs";
const STEAL =
  "The hypervisor took 12% of the CPUs' time while this cell was measured (steal, threshold 5.0%)";
const DRIFT = 'The first cell (SET) measured again after the last one gave 60,000 ops/s (1 trial)';

// Builds a site (about 70 s on a shared 2-core VM): its own timeout over the tier's minute (vitest.config.ts).
it('shows busy-host, CPU-steal and drift warnings with their figures on the result page', async () => {
  const r = sweepResult(900, 1, (doc) => {
    doc.warnings.push(
      { code: 'BUSY_HOST', cell: 'GET P4', message: BUSY },
      { code: 'CPU_STEAL', cell: 'GET P16', message: STEAL },
      { code: 'DRIFT', cell: null, message: DRIFT },
    );
  });
  const dbPath = join(dir, 'benchdb.sqlite');
  const db = openDatabase(dbPath);
  let id: string;
  try {
    id = ingest(db, JSON.stringify(signResult(r, generateSigningKey().privateKeyPem))).id;
  } finally {
    db.close();
  }
  const out = join(dir, 'dist');
  // A previous build in the same folder, and the leftover of one that was killed (its pid long gone):
  // site:build moves the first aside and removes both while it builds, and leaves nothing behind.
  // Each holds the marker site:build leaves in a folder it made (scripts/lib/out-folder.mjs).
  mkdirSync(join(out, 'results', 'gone'), { recursive: true });
  writeFileSync(join(out, 'results', 'gone', 'index.html'), 'a page of an earlier build');
  writeFileSync(join(out, '.redis-benchdb-site'), '');
  mkdirSync(join(dir, '.dist.old-999999999', 'results'), { recursive: true });
  writeFileSync(join(dir, '.dist.old-999999999', '.redis-benchdb-site'), '');
  await buildSite(dbPath, out);
  expect(existsSync(join(out, 'results', 'gone'))).toBe(false);
  expect(readdirSync(dir).filter((n) => n.includes('.old-'))).toEqual([]);
  const html = readFileSync(join(out, 'results', id, 'index.html'), 'utf8');
  // A cell's label is submitted text: the page isolates it (<bdi>), so the cell holds it inside one.
  // The cell table's row (the page's lead repeats a few cells above it, with whether each is ranked).
  const cells = html.slice(html.indexOf('<table class="cells"'));
  const row = (label: string) => {
    const at = cells.search(new RegExp(`<td[^>]*>(<bdi[^>]*>)?${label}(</bdi>)?</td>`));
    expect(at, label).toBeGreaterThan(0);
    return cells.slice(at, cells.indexOf('</tr>', at));
  };
  // Apostrophes may be escaped in attributes; compare on text without them.
  // Submitted text sits in <bdi> on the page; compare without those tags.
  const plain = (s: string) => s.replace(/&#39;|'/g, '').replace(/<\/?bdi[^>]*>/g, '');
  expect(row('GET P4')).toMatch(/class="badge warn"[^>]*>busy host</);
  expect(plain(row('GET P4'))).toContain(plain(BUSY));
  expect(row('GET P16')).toMatch(/>CPU steal</);
  expect(row('GET P16')).not.toMatch(/busy host/);
  expect(row('GET')).not.toMatch(/busy host|CPU steal/);
  // Scoped styles mark elements (data-astro-cid-…): compare on the tags without them.
  expect(plain(html).replace(/ data-astro-cid-\w+/g, '')).toContain(`<code>DRIFT</code>: ${plain(DRIFT)}`);
}, 600_000);

// Issue 14 on the real site with the project's real data: the database is built from data/ by
// `pnpm db:build`'s script, the site from it, and Chromium reads the version pages. Every server of
// each group in data/results/<machine>/ must appear on every other member's version page, side by
// side, with its figures; Redis 8.0-m01, which reports 7.9.224, must show both.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slug } from '../src/lib/routes.js';
import { type ServedSite, serveBuiltSite } from './served.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const results = join(root, 'data/results');
const machines = existsSync(results)
  ? readdirSync(results).filter((d) => statSync(join(results, d)).isDirectory())
  : [];

interface Member {
  product: string;
  version: string;
  tag: string | null;
}

/** The servers of one machine directory, as their signed results describe them. */
function members(machine: string): Member[] {
  const dir = join(results, machine);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'manifest.json')
    .map((f) => {
      const doc = JSON.parse(JSON.parse(readFileSync(join(dir, f), 'utf8')).payload);
      const s = doc.environment.server;
      return { product: s.product, version: s.version, tag: s.build?.tag ?? null };
    });
}

let site: ServedSite;

beforeAll(async () => {
  if (machines.length === 0) return;
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-dataset-site-'));
  const db = join(dir, 'benchdb.sqlite');
  const built = spawnSync(process.execPath, [join(root, 'scripts/db-build.mjs'), '--db', db], {
    encoding: 'utf8',
  });
  expect(built.status, built.stderr).toBe(0);
  site = await serveBuiltSite(dir, db);
}, 600_000);

afterAll(() => site?.close());

/** Each side-by-side block of a version page: the versions in its head, and each row's figures. */
function blocks(page: Page) {
  return page.locator('section.versions-block').evaluateAll((els) =>
    els.map((b) => ({
      versions: [...b.querySelectorAll('table.versions thead th[data-version]')].map(
        (th) => (th as HTMLElement).dataset.version ?? '',
      ),
      rows: [...b.querySelectorAll('table.versions tbody tr')].map((tr) =>
        [...tr.querySelectorAll('td')].map((td) => td.querySelector('.ops')?.textContent ?? null),
      ),
    })),
  );
}

describe.skipIf(machines.length === 0)('the real dataset on the built site', () => {
  for (const machine of machines) {
    it(`${machine}: each server's version page sets every server of the group beside it, with figures`, async () => {
      const group = members(machine);
      expect(group.length).toBeGreaterThanOrEqual(2);
      const all = group.map((m) => `${m.product} ${m.version}`).sort();
      for (const m of group) {
        const { page, errors } = await site.open(`/versions/${slug(m.product, m.version)}/`);
        const found = (await blocks(page)).find((b) => b.versions.length === group.length);
        expect(found, `${m.product} ${m.version}: a block with all ${group.length} servers`).toBeDefined();
        expect([...found!.versions].sort()).toEqual(all);
        expect(found!.rows.length).toBeGreaterThan(0);
        // Every server has a figure in at least one cell, and every figure shown is a number.
        for (let col = 0; col < group.length; col++)
          expect(found!.rows.some((r) => r[col] !== null && r[col] !== undefined)).toBe(true);
        for (const row of found!.rows)
          for (const f of row) if (f !== null) expect(f).toMatch(/^\d{1,3}(,\d{3})*$/);
        // A build from a source archive names its tag beside what the server reports.
        if (m.tag && m.tag !== m.version) expect(await page.locator('main').textContent()).toContain(m.tag);
        expect(errors).toEqual([]);
        await page.context().close();
      }
    });
  }
});

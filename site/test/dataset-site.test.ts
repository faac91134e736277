// Issue 14 on the real site with the project's real data: the database is built from data/ by
// `pnpm db:build`'s script, the site from it, and Chromium reads the version pages. Each server
// version measured on a machine of data/results must appear on every other version's page, side by
// side, with a figure for every standard cell its result has, the figure that result's file holds;
// Redis 8.0-m01, which reports 7.9.224, must show both. A machine directory may hold several groups
// (a quick one and a full one): each column shows one of its version's results.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slug } from '../src/lib/routes/routes.js';
import { type ServedSite, serveBuiltSite } from './served.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const results = join(root, 'data/results');
// Every directory but keys/ (the data keys' public halves) is a machine's.
const machines = existsSync(results)
  ? readdirSync(results).filter((d) => d !== 'keys' && statSync(join(results, d)).isDirectory())
  : [];

interface Member {
  /** The result's id on the site: the hex SHA-256 of its signed payload. */
  id: string;
  product: string;
  version: string;
  tag: string | null;
  /** Each cell's figure as a version page prints it, null where the page shows none (mostly errors). */
  figures: Map<string, string | null>;
}

/** The results of one machine directory, as their signed files describe them. */
function members(machine: string): Member[] {
  const dir = join(results, machine);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'manifest.json')
    .map((f) => {
      const { payload } = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      const doc = JSON.parse(payload);
      const s = doc.environment.server;
      const errors = new Set(
        doc.warnings
          .filter((w: { code: string }) => w.code === 'ERRORS')
          .map((w: { cell: string }) => w.cell),
      );
      const figures = new Map<string, string | null>(
        doc.cells.map((c: { label: string; opsPerSec: { median: number | null } }) => [
          c.label,
          c.opsPerSec.median === null || errors.has(c.label)
            ? null
            : Math.round(c.opsPerSec.median).toLocaleString('en-US'),
        ]),
      );
      return {
        id: createHash('sha256').update(payload).digest('hex'),
        product: s.product,
        version: s.version,
        tag: s.build?.tag ?? null,
        figures,
      };
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

/** Each side-by-side block of a version page: its columns (version, result linked) and rows. */
function blocks(page: Page) {
  return page.locator('section.versions-block').evaluateAll((els) =>
    els.map((b) => ({
      machine: (b as HTMLElement).dataset.machine ?? '',
      columns: [...b.querySelectorAll('table.versions thead th[data-version]')].map((th) => ({
        version: (th as HTMLElement).dataset.version ?? '',
        href: th.querySelector('a')?.getAttribute('href') ?? '',
      })),
      rows: [...b.querySelectorAll('table.versions tbody tr')].map((tr) => ({
        cell: (tr as HTMLElement).dataset.cell ?? '',
        figures: [...tr.querySelectorAll('td')].map((td) => td.querySelector('.ops')?.textContent ?? null),
      })),
    })),
  );
}

/**
 * What a failed search for a machine's block saw: each block the browser read (its machine and its
 * columns' versions) and how many the built file holds, so a failure says whether the build or the
 * page's loading left the block out.
 */
function missingBlock(
  version: string,
  count: number,
  machine: string,
  seen: { machine: string; columns: { version: string }[] }[],
  path: string,
): string {
  const html = readFileSync(join(site.out, path, 'index.html'), 'utf8');
  const inFile = html.match(/<section class="versions-block"/g)?.length ?? 0;
  const read = seen.map((b) => `${b.machine}: ${b.columns.map((c) => c.version).join(', ')}`).join('; ');
  return `${version}: a block with all ${count} versions of ${machine}; the browser read ${seen.length} block(s) (${read}), the built file (${html.length} bytes) holds ${inFile}`;
}

describe.skipIf(machines.length === 0)('the real dataset on the built site', () => {
  for (const machine of machines) {
    it(`${machine}: each version's page sets every version beside it, with every standard cell's figure`, async () => {
      const all = members(machine);
      const versions = [...new Set(all.map((m) => `${m.product} ${m.version}`))].sort();
      expect(versions.length).toBeGreaterThanOrEqual(2);
      for (const version of versions) {
        const m = all.find((x) => `${x.product} ${x.version}` === version)!;
        const path = `/versions/${slug(m.product, m.version)}/`;
        const { page, errors } = await site.open(path);
        // This directory's block: another machine's results (another directory) have blocks of their own.
        const seen = await blocks(page);
        const found = seen.find(
          (b) =>
            b.columns.length === versions.length &&
            b.columns.every((c) => all.some((x) => c.href.includes(x.id))),
        );
        expect(found, missingBlock(version, versions.length, machine, seen, path)).toBeDefined();
        expect(found!.columns.map((c) => c.version).sort()).toEqual(versions);
        // Each column is one result of its version from this directory, and shows its every cell.
        const labels = new Set<string>();
        found!.columns.forEach((column, col) => {
          const shown = all.find((x) => column.href.includes(x.id));
          expect(shown, `${version} page, column ${column.version}: links ${column.href}`).toBeDefined();
          expect(`${shown!.product} ${shown!.version}`).toBe(column.version);
          for (const [label, figure] of shown!.figures) {
            labels.add(label);
            const row = found!.rows.find((r) => r.cell === label);
            expect(row, `${version} page: no row for ${label}`).toBeDefined();
            expect(row!.figures[col], `${version} page, ${column.version}, ${label}`).toBe(figure);
          }
        });
        // No row but the cells the results hold.
        expect(found!.rows.map((r) => r.cell).sort()).toEqual([...labels].sort());
        // A build from a source archive names its tag beside what the server reports.
        if (m.tag && m.tag !== m.version) expect(await page.locator('main').textContent()).toContain(m.tag);
        expect(errors).toEqual([]);
        await page.context().close();
      }
    });
  }

  it('an io-threads group names IO_THREADS_OVER_CPUS on exactly its io-threads 2 members, above the comparison', async () => {
    // Group 2142880df6b23590 predates the warning: the site derives it from each result's facts.
    const { page, errors } = await site.open('/groups/2142880df6b23590/');
    const items = (await page.locator('section.caveats li').allTextContents()).map((t) =>
      t.replace(/\s+/g, ' ').trim(),
    );
    const crowded = items.find((t) => t.startsWith('IO_THREADS_OVER_CPUS on '));
    expect(crowded, items.join('\n')).toBeDefined();
    const on = crowded!.slice('IO_THREADS_OVER_CPUS on '.length, crowded!.indexOf(': '));
    expect(on.split(', ').sort()).toEqual(
      ['redis-server 6.0.20', 'redis-server 7.4.1', 'redis-server 7.9.224 (8.0-m01)', 'valkey-server 8.0.1']
        .map((s) => `${s} · io-threads 2`)
        .sort(),
    );
    expect(crowded).toContain('could run on one CPU (1)');
    // Before the cell-by-cell table; the first screen's matrix names the code on each such column.
    const order = await page.evaluate(() => {
      const c = document.querySelector('section.caveats');
      const t = document.querySelector('table.compare-cells');
      return c && t ? c.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING : 0;
    });
    expect(order).toBeGreaterThan(0);
    const flagged = await page
      .locator('.vs-default table.matrix thead th')
      .evaluateAll((ths) =>
        ths
          .filter((th) =>
            [...th.querySelectorAll('.note-code')].some((a) => a.textContent === 'IO_THREADS_OVER_CPUS'),
          )
          .map((th) => (th as HTMLElement).dataset.column),
      );
    expect(flagged.length).toBe(4);
    for (const name of flagged) expect(name).toMatch(/ · io-threads 2$/);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("the home page's versions by machine kind reach every version of the data, or list why it is left out", async () => {
    // Issue 27: no headline ranks versions by medians pooled across machines; each machine kind sets
    // its versions against a reference, and lists each result it left out with its reason.
    const all = machines.flatMap((m) => members(m));
    const { page, errors } = await site.open('/');
    expect(await page.locator('section.headline[data-by="version"]').count()).toBe(0);
    const text = (await page.locator('section.version-kind').allTextContents()).join('\n');
    for (const v of new Set(all.map((x) => `${x.product} ${x.version}`))) {
      const [, version] = v.split(' ') as [string, string];
      const ids = all.filter((x) => `${x.product} ${x.version}` === v).map((x) => x.id.slice(0, 12));
      const reached = text.includes(version) || ids.every((id) => text.includes(id));
      expect(reached, `the home page neither sets ${v} against a reference nor lists it as left out`).toBe(
        true,
      );
    }
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

describe.skipIf(machines.length === 0)('published comparisons on the built site (issue 29)', () => {
  const imported = join(root, 'data/imported');
  /** data/imported's side-by-side publications: each version's file, by source. */
  const pairs = () => {
    const bySource = new Map<string, { version: string; cells: { label: string; opsPerSec: number }[] }[]>();
    for (const f of readdirSync(imported).filter((x) => x.endsWith('.json'))) {
      const doc = JSON.parse(readFileSync(join(imported, f), 'utf8'));
      const key = doc.source.url ?? doc.source.title;
      bySource.set(key, [...(bySource.get(key) ?? []), { version: doc.server.version, cells: doc.cells }]);
    }
    return [...bySource].filter(([, docs]) => docs.length === 2 && docs[0]!.version !== docs[1]!.version);
  };

  /** Whether a group of data/results ran valkey 7.2.6 and 8.0.0-rc2 together (the compare profile). */
  const compareGroupRan = readdirSync(join(root, 'data/results'))
    .filter((d) => existsSync(join(root, 'data/results', d, 'manifest.json')))
    .some((d) => {
      const m = JSON.parse(readFileSync(join(root, 'data/results', d, 'manifest.json'), 'utf8'));
      return m.groups.some((g: { servers: { tag: string; project: string }[] }) =>
        ['7.2.6', '8.0.0-rc2'].every((t) =>
          g.servers.some((x) => x.project === 'valkey-io/valkey' && x.tag === t),
        ),
      );
    });

  it('lists every row of each publication, with its published ratio and a match or the reason for none', async () => {
    const publications = pairs();
    expect(publications.map(([url]) => url)).toContain('https://github.com/valkey-io/valkey/issues/1026');
    const { page, errors } = await site.open('/published/');
    for (const [url, docs] of publications) {
      const section = page.locator(`section.published[data-source="${url}"]`);
      expect(await section.count(), url).toBe(1);
      const [base, other] = [...docs].sort((a, b) =>
        a.version.localeCompare(b.version, 'en', { numeric: true }),
      );
      const rows = await section.locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          label: (tr as HTMLElement).dataset.row ?? '',
          cells: [...tr.querySelectorAll('td')].map(
            (td) => td.textContent?.replace(/\s+/g, ' ').trim() ?? '',
          ),
        })),
      );
      expect(rows.map((r) => r.label)).toEqual(base!.cells.map((c) => c.label));
      for (const row of rows) {
        const a = base!.cells.find((c) => c.label === row.label)!.opsPerSec;
        const b = other!.cells.find((c) => c.label === row.label)!.opsPerSec;
        // The published ratio, from the two files' own figures.
        expect(row.cells[3], row.label).toContain(`${(b / a).toFixed(3)}×`);
        expect(row.cells[4], row.label).toMatch(
          /No match: .+\.$|The published change lies (inside|outside) our interval on .+\.$/,
        );
      }
      // valkey#1026: the compare group in data/ ran both of its versions (8.0.0-rc2 reports 7.9.240, and
      // is found by its build's tag): every row it ran is set beside the group's interval, and the two
      // 128-byte list rows it could not run (memory) say so.
      if (url.endsWith('/issues/1026') && compareGroupRan) {
        const matched = rows.filter((r) =>
          /The published change lies (inside|outside) our interval/.test(r.cells[4]!),
        );
        expect(matched.length, JSON.stringify(rows.map((r) => r.cells[4]))).toBe(rows.length - 2);
        for (const r of rows.filter((x) => !matched.includes(x)))
          expect(r.label, r.cells[4]).toMatch(/^(RPUSH|LPUSH) \(pipeline 10, 128-byte values\)$/);
      }
    }
    // Each version of a publication links here from its version page, and the link leads here.
    const { page: version } = await site.open(`/versions/${slug('valkey', '8.0.0-rc2')}/`);
    const link = version.locator('p.published-link a');
    expect(await link.getAttribute('href')).toBe('/published/');
    await Promise.all([version.waitForURL('**/published/'), link.click()]);
    expect(await version.locator('h1').textContent()).toBe('Published comparisons');
    expect(errors).toEqual([]);
    await page.context().close();
    await version.context().close();
  });
});

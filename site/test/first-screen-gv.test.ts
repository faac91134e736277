// Issue 28, group and version pages, on the site built from data/ and read in Chromium at 1280×800
// and 390×844: the first screen (the top 800 or 844 px) answers the page's question. A group page
// names its machine kind and configuration, then a matrix of its members against a baseline the
// reader picks with a plain link (no JavaScript), columns named by server and setting; a version
// page sets the versions measured beside it over it, kind by kind. The figures are checked against
// the files: each paired ratio and interval is recomputed from the trials (log ratios, Student's t),
// and only the identities (packages/result identity.ts) name the kinds. Every group and version
// page stays within the height budget with its details folded, and no table the reader sees at
// 1280 is wider than its box; at 390 a wide one scrolls in its own box with its first column fixed,
// and a matrix stacks (issue 44), a line per column, so that its verdicts are on screen.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slug } from '../src/lib/routes/routes.js';
import { close, dirs, leading, type Member, members, near, paired } from './group-files.js';
import { type ServedSite, serveBuiltSite } from './served.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

const SCREENS = [
  { width: 1280, height: 800, budget: 6000 },
  { width: 390, height: 844, budget: 9000 },
] as const;

let site: ServedSite;
let all: Member[] = [];
let groups: string[] = [];
let versions: string[] = [];
/** The served site's origin. */
let base = '';

beforeAll(async () => {
  if (dirs.length === 0) return;
  all = members();
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-first-screen-'));
  const db = join(dir, 'benchdb.sqlite');
  const built = spawnSync(process.execPath, [join(root, 'scripts/db-build.mjs'), '--db', db], {
    encoding: 'utf8',
  });
  expect(built.status, built.stderr).toBe(0);
  site = await serveBuiltSite(dir, db);
  const home = await site.open('/');
  base = new URL(home.page.url()).origin;
  await home.page.context().close();
  // Every group the build has a page for: the standard profiles' and the compare profile's (issue 29).
  groups = readdirSync(join(site.out, 'groups')).map((g) => `/groups/${g}/`);
  versions = readdirSync(join(site.out, 'versions'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `/versions/${d.name}/`);
}, 600_000);

afterAll(() => site?.close());

/** A page at this viewport in a context of its own; it must raise no console or page error. */
async function at(path: string, width: number, height: number, javaScriptEnabled = true): Promise<Page> {
  const ctx = await site.browser.newContext({ viewport: { width, height }, javaScriptEnabled });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  const res = await page.goto(base + path, { waitUntil: 'networkidle' });
  expect(res?.status(), path).toBe(200);
  expect(errors, path).toEqual([]);
  return page;
}

/** Whether the first shown element matching the selector lies wholly within the first screen (the page unscrolled). */
function inFirstScreen(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((sel) => {
    const el = [...document.querySelectorAll(sel)].find((e) => e.getBoundingClientRect().height > 0);
    if (!el || window.scrollY !== 0) return false;
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
  }, selector);
}

/** The matrix shown (the one baseline whose block is displayed; or in the k-th version section), as the reader sees it. */
function shownMatrix(page: Page, section: number | null = null) {
  return page.evaluate((k) => {
    const scope = k === null ? document : document.querySelectorAll('section.version-matrix')[k];
    const table = [...(scope?.querySelectorAll<HTMLTableElement>('table.matrix') ?? [])].find(
      (t) => t.offsetParent !== null,
    );
    if (!table) return null;
    const heads = [...table.querySelectorAll('thead th')].slice(1) as HTMLElement[];
    return {
      baselineBlock: (table.closest('.vs') as HTMLElement | null)?.dataset.baseline ?? null,
      columns: heads.map((th) => ({
        name: th.dataset.column ?? '',
        text: th.textContent ?? '',
        baseline: th.classList.contains('baseline'),
        href: th.querySelector('a:not(.note-code)')?.getAttribute('href') ?? null,
      })),
      rows: [...table.querySelectorAll('tbody tr')].map((tr) => ({
        label: (tr as HTMLElement).dataset.row ?? '',
        entries: [...tr.querySelectorAll('td')].map((td) => {
          const d = (td as HTMLElement).dataset;
          return {
            kind: d.kind ?? '',
            ratio: d.ratio ? Number(d.ratio) : null,
            low: d.low ? Number(d.low) : null,
            high: d.high ? Number(d.high) : null,
            outcome: d.outcome ?? null,
            text: td.textContent ?? '',
            // The entry's own link (its group), not the column name it repeats when stacked at 390.
            href: td.querySelector('a:not(.stack-name)')?.getAttribute('href') ?? null,
          };
        }),
      })),
    };
  }, section);
}

type Shown = NonNullable<Awaited<ReturnType<typeof shownMatrix>>>;

/** faster and slower appear only where the entry's interval lies wholly above or below 1. */
function checkWords(where: string, m: Shown) {
  for (const r of m.rows)
    for (const e of r.entries) {
      const said = /faster|slower/.exec(e.text)?.[0] ?? null;
      expect(said, `${where} ${r.label}`).toBe(e.outcome === 'no verdict' ? null : e.outcome);
      if (e.outcome === 'faster' && e.low !== null) expect(e.low, `${where} ${r.label}`).toBeGreaterThan(1);
      if (e.outcome === 'slower' && e.high !== null) expect(e.high, `${where} ${r.label}`).toBeLessThan(1);
    }
}

describe.skipIf(dirs.length === 0)('group pages: the first screen', () => {
  it('names the machine kind and the configuration, then the matrix with columns named by server and setting', async () => {
    for (const { width, height } of SCREENS)
      for (const path of groups) {
        const id = path.split('/')[2]!;
        const mine = all.filter((m) => m.group === id).sort((a, b) => a.index - b.index);
        expect(mine.length, path).toBeGreaterThanOrEqual(2);
        const page = await at(path, width, height);
        const where = `${path} at ${width}`;
        const kind = await page.locator('dl.group-kind').textContent();
        expect(kind, where).toContain(mine[0]!.machine);
        // Every part of every member's configuration is named: the shared ones and what differs.
        for (const m of mine) for (const part of m.config.split(' · ')) expect(kind, where).toContain(part);
        expect(await inFirstScreen(page, 'dl.group-kind'), where).toBe(true);
        // At 390 the matrix stacks (issue 44): its head is hidden, each entry names its column.
        expect(
          await inFirstScreen(page, width === 390 ? 'table.matrix tbody tr td.entry' : 'table.matrix thead'),
          where,
        ).toBe(true);
        const shown = (await shownMatrix(page))!;
        expect(shown, where).not.toBeNull();
        const firstRow = await page.evaluate(() => {
          const tr = [...document.querySelectorAll<HTMLElement>('table.matrix tbody tr')].find(
            (t) => t.offsetParent !== null,
          );
          // Stacked at 390, a row is a workload's block of entries: its first entry, the baseline's, must show.
          const first = innerWidth < 640 ? tr?.querySelector('td') : tr;
          return first ? first.getBoundingClientRect().bottom : Number.POSITIVE_INFINITY;
        });
        expect(firstRow, `${where}: the matrix's first row`).toBeLessThanOrEqual(height);
        // Baseline GET and SET, then pipelined GET and SET, by the labels of the profile the group ran;
        // every group, the compare profile's too, has a baseline GET and SET to lead with.
        const lead = leading(mine);
        expect(lead.length, where).toBeGreaterThanOrEqual(2);
        expect(shown.rows.map((r) => r.label).slice(0, lead.length), where).toEqual(lead);
        // Named by server and setting, in member order; never by a hash.
        expect(shown.columns.length, where).toBe(mine.length);
        shown.columns.forEach((c, i) => {
          const m = mine[i]!;
          expect(c.name, where).toContain(`${m.product} ${m.version}`);
          for (const setting of m.label.split(' · ').slice(1)) expect(c.name, where).toContain(setting);
          expect(c.text, where).not.toMatch(/[0-9a-f]{12}/);
        });
        expect(shown.columns[0]!.baseline, where).toBe(true);
        await page.context().close();
      }
  });

  it("each entry is the paired ratio to the baseline the reader picks with a plain link, with the files' interval", async () => {
    let checked = 0;
    for (const path of groups) {
      const id = path.split('/')[2]!;
      const mine = all.filter((m) => m.group === id).sort((a, b) => a.index - b.index);
      // No JavaScript: the links alone pick the baseline.
      const page = await at(path, 1280, 800, false);
      for (let b = 0; b < mine.length; b++) {
        if (b > 0) {
          const before = (await shownMatrix(page))!;
          const link = before.columns[b]!.href!;
          expect(link, `${path}: column ${b} links its baseline`).toMatch(/^#vs-\d+$/);
          await page.locator(`.vs:visible thead a[href="${link}"]`).click();
          await page.waitForURL(new RegExp(`${link}$`));
          expect(await page.evaluate(() => window.scrollY), `${path}: the head stays in view`).toBe(0);
        }
        const shown = (await shownMatrix(page))!;
        const where = `${path}, baseline ${mine[b]!.label}`;
        expect(shown.baselineBlock, where).toBe(String(b));
        expect(
          shown.columns.findIndex((c) => c.baseline),
          where,
        ).toBe(b);
        checkWords(where, shown);
        for (const row of shown.rows)
          row.entries.forEach((e, i) => {
            if (i === b) {
              expect(e.kind, where).toBe('baseline');
              return;
            }
            if (e.kind !== 'ratio') return;
            const p = paired(mine[b]!.trials.get(row.label) ?? [], mine[i]!.trials.get(row.label) ?? []);
            expect(p, `${where}: ${row.label} of ${mine[i]!.label}`).not.toBeNull();
            expect(close(e.ratio!, p!.ratio), `${where}: ${row.label} ${e.ratio} vs ${p!.ratio}`).toBe(true);
            expect(near(e.low!, p!.low) && near(e.high!, p!.high), `${where}: ${row.label} interval`).toBe(
              true,
            );
            checked++;
          });
      }
      await page.context().close();
    }
    expect(checked).toBeGreaterThan(100);
  });
});

describe.skipIf(dirs.length === 0)('version pages: the first screen', () => {
  it('holds the comparison with the versions beside it, each paired figure the group files give', async () => {
    let checked = 0;
    for (const { width, height } of SCREENS)
      for (const path of versions) {
        const page = await at(path, width, height);
        const where = `${path} at ${width}`;
        const sections = await page.locator('section.version-matrix').count();
        if (sections === 0) {
          // Nothing measured beside it: the page says so where the comparison would be.
          const none = page.locator('main > p.muted', { hasText: 'nothing is set beside it' });
          expect(await none.count(), where).toBe(1);
          await page.context().close();
          continue;
        }
        expect(await inFirstScreen(page, 'section.version-matrix h2'), where).toBe(true);
        const first = await page.evaluate(() => {
          const s = document.querySelector('section.version-matrix')!;
          const t = s.querySelector('table.matrix thead, p.muted');
          return t ? t.getBoundingClientRect().bottom : Number.POSITIVE_INFINITY;
        });
        expect(first, `${where}: the first kind's matrix or its note`).toBeLessThanOrEqual(height);
        if (width === 1280) {
          const blocks = await page.locator('section.version-matrix').evaluateAll((ss) =>
            ss.map((s) => ({
              machine: s.querySelector('h2 a')?.textContent ?? '',
              config: (s as HTMLElement).dataset.config ?? '',
            })),
          );
          for (let k = 0; k < blocks.length; k++) {
            const shown = await shownMatrix(page, k);
            if (!shown) continue;
            const { machine, config } = blocks[k]!;
            const w = `${where}, ${machine} · ${config}`;
            checkWords(w, shown);
            expect(shown.columns[0]!.baseline, w).toBe(true);
            for (const c of shown.columns) expect(c.text, w).not.toMatch(/[0-9a-f]{12}/);
            const slugOf = (m: Member) => `/versions/${slug(m.product, m.version)}/`;
            for (const row of shown.rows)
              row.entries.forEach((e, i) => {
                const group = /^\/groups\/([0-9a-f]+)\/$/.exec(e.href ?? '')?.[1];
                if (e.kind !== 'ratio' || !group) return;
                const find = (href: string | null) =>
                  all.find(
                    (m) =>
                      m.group === group && slugOf(m) === href && m.machine === machine && m.config === config,
                  );
                const base = find(path);
                const other = find(shown.columns[i]!.href);
                expect(base && other, `${w}: group ${group} holds both`).toBeTruthy();
                const p = paired(base!.trials.get(row.label)!, other!.trials.get(row.label)!)!;
                expect(close(e.ratio!, p.ratio), `${w}: ${row.label} ${e.ratio} vs ${p.ratio}`).toBe(true);
                expect(near(e.low!, p.low) && near(e.high!, p.high), `${w}: ${row.label} interval`).toBe(
                  true,
                );
                checked++;
              });
          }
        }
        await page.context().close();
      }
    expect(checked).toBeGreaterThan(20);
  });
});

describe.skipIf(dirs.length === 0)('version pages of every group', () => {
  it("each group of several versions reaches the version pages: a member's page sets the others beside it on the group's machine kind, by the group's paired figures", async () => {
    for (const path of groups) {
      const id = path.split('/')[2]!;
      const mine = all.filter((m) => m.group === id).sort((a, b) => a.index - b.index);
      // A group of one version's settings (io-threads, persistence) sets no version beside another.
      if (new Set(mine.map((m) => `${m.product} ${m.version}`)).size < 2) continue;
      // The newest member first: its page is the one a reader of the group's latest server opens.
      const linked: string[] = [];
      for (const m of [...mine].reverse()) {
        const page = await at(`/versions/${slug(m.product, m.version)}/`, 1280, 800);
        const sections = await page.locator('section.version-matrix').evaluateAll((ss) =>
          ss.map((s) => ({
            machine: s.querySelector('h2 a')?.textContent ?? '',
            config: (s as HTMLElement).dataset.config ?? '',
            links: [...s.querySelectorAll('td.entry a')].map((a) => a.getAttribute('href')),
          })),
        );
        await page.context().close();
        const here = sections.find((s) => s.machine === m.machine && s.config === m.config);
        if (here?.links.includes(path)) {
          linked.push(`${m.product} ${m.version}`);
          break;
        }
      }
      expect(linked, `${path}: a member's version page holds the group's figures`).toHaveLength(1);
    }
  });
});

describe.skipIf(dirs.length === 0)('group and version pages: budgets', () => {
  it('every one is within its height, no table the reader sees is wider than its box at 1280, and at 390 a wide one scrolls in its own box with its first column fixed', async () => {
    for (const { width, height, budget } of SCREENS)
      for (const path of [...groups, ...versions]) {
        const page = await at(path, width, height);
        const where = `${path} at ${width}`;
        const m = await page.evaluate(() => {
          const shown = [...document.querySelectorAll<HTMLTableElement>('table')].filter(
            (t) => t.offsetParent !== null && !t.closest('details:not([open])'),
          );
          return {
            height: document.documentElement.scrollHeight,
            pageWidth: document.documentElement.scrollWidth,
            tables: shown.map((t) => {
              const box = t.parentElement!;
              return {
                name: t.className || t.querySelector('th')?.textContent || '?',
                width: t.getBoundingClientRect().width,
                box: box.clientWidth,
                scrolls: ['auto', 'scroll'].includes(getComputedStyle(box).overflowX),
              };
            }),
          };
        });
        expect(m.height, where).toBeLessThanOrEqual(budget);
        expect(m.pageWidth, where).toBeLessThanOrEqual(width);
        for (const t of m.tables) {
          if (width === 1280) expect(t.width, `${where}: table ${t.name}`).toBeLessThanOrEqual(t.box + 1);
          else if (t.width > t.box + 1)
            expect(t.scrolls, `${where}: table ${t.name} scrolls in its box`).toBe(true);
        }
        if (width === 390) {
          // The matrix's workload column stays put while its box scrolls.
          const fixed = await page.evaluate(() => {
            const box = [...document.querySelectorAll<HTMLElement>('.matrix-box')].find(
              (b) => b.offsetParent !== null && b.scrollWidth > b.clientWidth,
            );
            if (!box) return null;
            box.scrollLeft = box.scrollWidth;
            const th = box.querySelector('tbody th')!;
            return {
              th: th.getBoundingClientRect().left,
              box: box.getBoundingClientRect().left,
              moved: box.scrollLeft,
            };
          });
          if (fixed) {
            expect(fixed.moved, where).toBeGreaterThan(0);
            expect(Math.abs(fixed.th - fixed.box), `${where}: first column fixed`).toBeLessThanOrEqual(1);
          }
        }
        await page.context().close();
      }
  });
});

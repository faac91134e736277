// Issue 27 on a synthetic database (kinds-fixture.ts): two machine kinds named alike ("Intel(R)
// Xeon(R) E-2388G ...") that differ only in L2, io-threads 2 and AOF members, a busy-host result.
// Built by astro, served on 127.0.0.1 and read by Debian's Chromium: no summary pools kinds or
// configurations, what is left out is listed with its reason, no range is called an interval, and a
// compare across kinds names the CPU difference and gives no verdict.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slug } from '../src/lib/routes/routes.js';
import { buildKindsFixture, type KindsFixture } from './kinds-fixture.js';
import { type ServedSite, serveBuiltSite } from './served.js';

let fx: KindsFixture;
let site: ServedSite;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-kinds-site-'));
  fx = buildKindsFixture(dir);
  site = await serveBuiltSite(dir, fx.dbPath);
}, 600_000);

afterAll(() => site?.close());

/** Each version section of a page: its kind, configuration, label, figures and left-out list. */
async function sections(page: Page) {
  return page.locator('section.version-kind').evaluateAll((els) =>
    els.map((s) => ({
      machine: (s as HTMLElement).dataset.machine ?? '',
      config: (s as HTMLElement).dataset.config ?? '',
      isDefault: (s as HTMLElement).dataset.default === '1',
      title: s.querySelector('h3, h4')?.textContent ?? '',
      text: s.textContent ?? '',
      figures: [...s.querySelectorAll('td.version-figure')].map((td) => ({ ...(td as HTMLElement).dataset })),
      leftOut: [...s.querySelectorAll('details.left-out li')].map((li) => li.textContent ?? ''),
    })),
  );
}

const L2A = 'L2 512 KiB';
const L2B = 'L2 1 MiB';

describe('summaries never pool machine kinds or configurations', () => {
  it('the home page: one section per kind and configuration, the paired figure on kind A, the busy result listed', async () => {
    const { page, errors } = await site.open('/');
    const s = await sections(page);
    const defaults = s.filter((x) => x.isDefault);
    expect(defaults.map((x) => x.title.includes(L2A) || x.title.includes(L2B))).toEqual([true, true]);
    expect(new Set(defaults.map((x) => x.machine)).size).toBe(2);
    const a = defaults.find((x) => x.title.includes(L2A))!;
    const b = defaults.find((x) => x.title.includes(L2B))!;
    // Kind A: the interleaved group's paired ratio (~1.02), named, with its interval.
    const aGet = a.figures.find((f) => f.label === 'GET')!;
    expect(aGet).toMatchObject({
      basis: 'paired',
      group: fx.groupId,
      reference: '6.0.20',
      version: '7.0.15',
    });
    expect(Number(aGet.ratio)).toBeGreaterThan(1);
    expect(Number(aGet.ratio)).toBeLessThan(1.05);
    expect(Number(aGet.low)).toBeLessThan(Number(aGet.ratio));
    // Kind B: no group, so the ratio of medians (0.9 / 0.75 = 1.2), judged against B's own noise.
    const bGet = b.figures.find((f) => f.label === 'GET')!;
    expect(bGet.basis).toBe('medians');
    expect(Number(bGet.ratio)).toBeCloseTo(1.2, 2);
    // The busy-host 7.0.15 on kind A is left out, named, with its reason.
    expect(a.leftOut.join('\n')).toContain(`${fx.aBusy70.slice(0, 12)}: busy host`);
    // io-threads 2 and AOF are their own labelled sections, under "Other configurations".
    const others = s.filter((x) => !x.isDefault);
    expect(others.some((x) => x.text.includes('io-threads 2'))).toBe(true);
    const aof = others.find((x) => x.text.includes('AOF everysec'))!;
    expect(aof.figures.find((f) => f.label === 'GET')).toMatchObject({
      reference: '6.0.20',
      version: '7.0.15',
    });
    // The machine headline names both kinds apart, each with its own figure.
    const rows = await page.locator('section.headline table tbody tr td:nth-child(2)').allTextContents();
    expect(rows.filter((r) => r.includes(L2A))).toHaveLength(1);
    expect(rows.filter((r) => r.includes(L2B))).toHaveLength(1);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('the explorer: one bar per version, kind and configuration; a range of 3 results is called a range; left-out listed', async () => {
    const { page, errors } = await site.open('/explore/get/');
    await page.waitForSelector('table.explore-bars tbody tr');
    const bars = await page.locator('table.explore-bars tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        text: tr.textContent ?? '',
        ratio: tr.querySelector('[data-label=ratio]')?.textContent ?? '',
      })),
    );
    const gets = readdirSync(join(site.out, 'explore/w')).map(
      (f) =>
        JSON.parse(readFileSync(join(site.out, 'explore/w', f), 'utf8')) as {
          workload: { label: string };
          bars: {
            server: string;
            machine: string;
            config: string;
            results: number;
            spread: string;
            sample: string;
          }[];
          leftOut: { text: string; results: { id: string; reasons: string[] }[] } | null;
        },
    );
    const get = gets.find((d) => d.workload.label === 'GET')!;
    // 2 kinds x (6.0.20, 7.0.15) default, + io-threads 2 and 2 AOF on kind A: 7 bars, none pooled.
    expect(get.bars).toHaveLength(7);
    const b60 = get.bars.find((x) => x.server === 'redis 6.0.20' && x.machine.includes(L2B))!;
    expect(b60.results).toBe(3);
    expect(b60.spread).toBe('range of 3 results');
    const a70 = get.bars.filter((x) => x.server === 'redis 7.0.15' && x.machine.includes(L2A));
    expect(a70.map((x) => x.results)).toEqual([1, 1, 1]);
    expect(get.leftOut?.results).toEqual([{ id: fx.aBusy70, reasons: ['BUSY_HOST'] }]);
    expect(get.leftOut?.text).toBe('1 result left out: 1 busy host');
    // In the page: the range says so, and no ratio crosses kinds or configurations.
    expect(bars.some((r) => r.text.includes('range of 3 results'))).toBe(true);
    expect(bars.filter((r) => r.ratio === 'machine or configuration differs').length).toBeGreaterThan(0);
    expect(await page.locator('details.left-out').textContent()).toContain('1 result left out: 1 busy host');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('the version page sets 7.0.15 against 6.0.20 on each kind apart', async () => {
    const { page, errors } = await site.open(`/versions/${slug('redis', '7.0.15')}/`);
    const s = await sections(page);
    const kinds = s.filter((x) => x.isDefault);
    expect(kinds).toHaveLength(2);
    expect(kinds.map((x) => x.figures.find((f) => f.label === 'GET')?.basis).sort()).toEqual([
      'medians',
      'paired',
    ]);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

describe('no built page calls a range an interval', () => {
  it('every explorer bar of 2 to 5 results is a range, and no HTML names one an interval', () => {
    let ranges = 0;
    for (const f of readdirSync(join(site.out, 'explore/w'))) {
      const d = JSON.parse(readFileSync(join(site.out, 'explore/w', f), 'utf8')) as {
        bars: { results: number; spread: string }[];
      };
      for (const b of d.bars) {
        if (b.results >= 2 && b.results < 6) {
          ranges++;
          expect(b.spread).toBe(`range of ${b.results} results`);
        } else if (b.results >= 6) expect(b.spread).toMatch(/^95% interval of the median of \d+ results$/);
        // One result: its trials' spread, an interval only from 6 trials (packages/result spread.ts).
        else
          expect(b.spread).toMatch(
            /^(range of [2-5] trials|95% interval of the median of \d+ trials|1 trial, no spread)$/,
          );
      }
    }
    expect(ranges).toBeGreaterThan(0);
    const html = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? html(join(dir, e.name)) : e.name.endsWith('.html') ? [join(dir, e.name)] : [],
      );
    for (const file of html(site.out)) {
      const text = readFileSync(file, 'utf8');
      // "range of k results: a–b" is the only way several results' spread is printed; never "interval" beside it.
      expect(text, file).not.toMatch(
        /interval[^<]{0,20}range of \d+ results|range of \d+ results[^<]{0,20}interval/,
      );
      expect(text, file).not.toMatch(/their whole range/);
    }
  });
});

describe('a compare across machine kinds', () => {
  async function compare(ids: string[]) {
    const { page, errors } = await site.open(`/compare/?r=${ids.map((id) => id.slice(0, 12)).join(',')}`);
    await page.waitForSelector('table.compare-cells');
    const verdicts = await page
      .locator('table.compare-cells tbody tr')
      .evaluateAll((trs) =>
        trs.map(
          (tr) =>
            `${tr.querySelector('.verdict')?.textContent ?? ''} ${tr.querySelector('.verdict-rule')?.textContent ?? ''}`,
        ),
      );
    const differs = (await page.locator('.differing').textContent()) ?? '';
    return { page, errors, verdicts, differs };
  }

  it('names the CPU kinds and caches in "What differs" and gives no verdict, marking machine and version', async () => {
    const { page, errors, verdicts, differs } = await compare([fx.a60, fx.b70]);
    expect(differs).toContain(L2A);
    expect(differs).toContain(L2B);
    expect(verdicts.length).toBeGreaterThan(0);
    for (const v of verdicts) {
      expect(v).not.toMatch(/faster|slower/);
      expect(v).toContain('machine and version differ');
    }
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('the same version on two kinds: no verdict either, marked machine differs', async () => {
    const { page, verdicts } = await compare([fx.a70, fx.b70]);
    for (const v of verdicts) expect(v).toMatch(/no verdict.*machine differs/);
    await page.context().close();
  });
});

describe('the results list by machine kind', () => {
  it('offers each kind by the label the machines page gives it, and filters by kind, not by CPU model name', async () => {
    const { page: machines } = await site.open('/machines/');
    // The machines page: each kind's link, its slug and its title.
    const kinds = await machines
      .locator('main a[href^="/machines/"]')
      .evaluateAll((as) =>
        as
          .map((a) => ({ href: a.getAttribute('href') ?? '', text: (a.textContent ?? '').trim() }))
          .filter((a) => /^\/machines\/[^/]+\/$/.test(a.href)),
      );
    await machines.context().close();
    const a = kinds.find((k) => k.text.includes(L2A))!;
    const b = kinds.find((k) => k.text.includes(L2B))!;
    expect(a.href).not.toBe(b.href);

    const { page, errors } = await site.open('/results/');
    const options = await page
      .locator('select[name=machine] option')
      .evaluateAll((os) =>
        os.map((o) => ({ value: (o as HTMLOptionElement).value, text: o.textContent ?? '' })),
      );
    const slugOf = (href: string) => href.split('/')[2]!;
    expect(options).toContainEqual({ value: slugOf(a.href), text: a.text });
    expect(options).toContainEqual({ value: slugOf(b.href), text: b.text });
    expect(await page.locator('select[name=cpu]').count()).toBe(0);
    // The column names the kind as the machines page does, linked to it.
    expect(await page.locator('table.results th').allTextContents()).toContain('Machine kind');
    await page.context().close();

    // Filtered to kind A: every row is kind A, though kind B shares its CPU model name.
    const filtered = await site.open(`/results/?machine=${slugOf(a.href)}`);
    await filtered.page.waitForFunction(() =>
      /match/.test(document.querySelector('.filter-status')?.textContent ?? ''),
    );
    const rows = await filtered.page
      .locator('table.results tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => tr.querySelector('td:nth-child(4) a')?.getAttribute('href') ?? ''),
      );
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows)).toEqual(new Set([a.href]));
    expect(errors).toEqual([]);
    expect(filtered.errors).toEqual([]);
    await filtered.page.context().close();
  });
});

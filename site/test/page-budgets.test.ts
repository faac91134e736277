// Issue 28 on the real site with the project's real data. Items 1 and 2: with its details folded, no
// page is taller than 6,000 px at 1280 or 9,000 px at 390; no table is wider than its box at 1280; a
// table too wide for a phone scrolls inside a box of its own with its first column fixed; and the
// result, compare, machine, explorer and home pages each show their answer in the first screen.
// Every HTML page the build writes is read at both widths by one Chromium, one page after another:
// the measures are taken in one pass, the tests judge them. Pages of a known kind are judged by kind;
// every other page of dist/ (methodology, published, open data, the versions list, and any page added
// later) is read as "other", so a new page is under the budgets without a line here. Every link one
// page makes to a place in another (`/methodology/#admission`) is followed too: it must land on its
// target shown, not inside a folded section.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedSite, serveBuiltSite } from './served.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const hasData = existsSync(join(root, 'data/results'));

const SCREENS = [
  { width: 1280, height: 800, budget: 6_000 },
  { width: 390, height: 844, budget: 9_000 },
] as const;

/** The element whose top must lie in the first screen: the page's answer. */
const ANSWER: Record<string, string[]> = {
  result: ['.lead .lead-kind', '.lead table.lead-figures tbody tr', '.lead p.standing'],
  compare: ['.compare-summary .compare-tally li'],
  machine: ['.lead-kind', '#standing + *'],
  explorer: ['table.explore-bars tbody tr'],
  // Issue 44: the home answers which version is faster, from the most precise group (HomeAnswer.astro).
  home: ['section.answer table.answer-table tbody tr td[data-kind="ratio"]'],
};

interface Measure {
  kind: string;
  path: string;
  width: number;
  height: number;
  /** The document's width: more than the viewport means something widened the page. */
  docWidth: number;
  /** Tables wider than their box: and whether they scroll in a box of their own with a sticky first column. */
  wide: { table: string; width: number; box: number; scrolls: boolean; sticky: boolean }[];
  /** Each answer selector: the top of its first match (null: no such element shown). */
  answer: { selector: string; top: number | null }[];
}

/** Every page of a kind the build wrote: a directory per page under dist/<dir>/. */
function built(out: string, dir: string): string[] {
  const d = join(out, dir);
  if (!existsSync(d)) return [];
  return readdirSync(d)
    .filter((f) => f !== 'page' && statSync(join(d, f)).isDirectory() && existsSync(join(d, f, 'index.html')))
    .map((f) => `/${dir}/${f}/`);
}

/** Every page the build wrote: each index.html under dist/, as the path that serves it. */
function everyPage(out: string): string[] {
  return readdirSync(out, { recursive: true, encoding: 'utf8' })
    .filter((f) => f === 'index.html' || f.endsWith('/index.html'))
    .map((f) => `/${f.slice(0, -'index.html'.length)}`)
    .sort();
}

/** Links from one page to a place in another, once each: `/methodology/#admission`. */
function crossPageAnchors(out: string, pages: string[]): string[] {
  const found = new Set<string>();
  for (const path of pages)
    for (const m of readFileSync(join(out, path, 'index.html'), 'utf8').matchAll(
      /href="(\/[^"#?]*)#([^"]+)"/g,
    ))
      if (m[1] !== path) found.add(`${m[1]}#${m[2]}`);
  return [...found].sort();
}

interface Landing {
  link: string;
  /** How it was followed: "at 390", "at 390 without JavaScript". */
  how: string;
  /** What is wrong where the link lands: null when its target is shown, in view, every fold around it open. */
  problem: string | null;
}

/**
 * Follow each link afresh (about:blank between: a link from another page, not a scroll within one)
 * and say where it lands: its target must exist, be shown and lie in the first screen; with
 * JavaScript, no details around it may stay closed. Without, a folded section's heading is shown
 * closed (Chromium itself opens a details for a target inside its folded content).
 */
async function follow(site: ServedSite, links: string[], width: number, height: number, js: boolean) {
  const context = await site.browser.newContext({ viewport: { width, height }, javaScriptEnabled: js });
  const page = await context.newPage();
  const out: Landing[] = [];
  for (const link of links) {
    await page.goto('about:blank');
    await page.goto(site.url + link, { waitUntil: 'load' });
    const problem = await page.evaluate((js) => {
      const id = decodeURIComponent(location.hash.slice(1));
      const target = document.getElementById(id);
      if (!target) return `no element #${id}`;
      if (js)
        for (let e = target.parentElement; e; e = e.parentElement)
          if (e instanceof HTMLDetailsElement && !e.open) return `#${id} is inside a closed details`;
      if (target.getClientRects().length === 0) return `#${id} is not shown`;
      const top = target.getBoundingClientRect().top;
      return top < -1 || top >= innerHeight ? `#${id} is at y=${Math.round(top)} of the screen` : null;
    }, js);
    out.push({ link, how: `at ${width}${js ? '' : ' without JavaScript'}`, problem });
  }
  await context.close();
  return out;
}

/** Fold every details element, then measure what a reader sees. */
function measure(page: Page, selectors: string[]) {
  return page.evaluate((selectors) => {
    for (const d of document.querySelectorAll('details')) d.open = false;
    const shown = (e: Element) => e.getClientRects().length > 0;
    const name = (t: Element) => `table${t.className ? `.${t.className.split(' ').join('.')}` : ''}`;
    const scroller = (t: Element): HTMLElement | null => {
      for (let e: HTMLElement | null = t as HTMLElement; e && e.tagName !== 'MAIN'; e = e.parentElement)
        if (['auto', 'scroll'].includes(getComputedStyle(e).overflowX)) return e;
      return null;
    };
    const wide = [...document.querySelectorAll('main table')].filter(shown).flatMap((t) => {
      const box = scroller(t);
      // The room inside a box: its content width (clientWidth counts its padding too).
      const inner = (e: Element) => {
        const s = getComputedStyle(e);
        return e.clientWidth - Number.parseFloat(s.paddingLeft) - Number.parseFloat(s.paddingRight);
      };
      const room = Math.round(inner(box && box !== t ? box : t === box ? t : t.parentElement!));
      const width = t === box ? t.scrollWidth : t.getBoundingClientRect().width;
      if (width <= room + 1) return [];
      const firsts = [...t.querySelectorAll('tr')].map((r) => r.firstElementChild).filter((c) => c !== null);
      return [
        {
          table: name(t),
          width: Math.round(width),
          box: room,
          scrolls: box !== null && box.getBoundingClientRect().right <= innerWidth + 1,
          sticky: firsts.length > 0 && firsts.every((c) => getComputedStyle(c).position === 'sticky'),
        },
      ];
    });
    return {
      height: document.documentElement.scrollHeight,
      docWidth: document.documentElement.scrollWidth,
      wide,
      answer: selectors.map((selector) => {
        const e = [...document.querySelectorAll(selector)].find(shown);
        return { selector, top: e ? Math.round(e.getBoundingClientRect().top + scrollY) : null };
      }),
    };
  }, selectors);
}

let site: ServedSite;
const measures: Measure[] = [];
const landings: Landing[] = [];

beforeAll(async () => {
  if (!hasData) return;
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-page-budgets-'));
  const db = join(dir, 'benchdb.sqlite');
  const made = spawnSync(process.execPath, [join(root, 'scripts/db-build.mjs'), '--db', db], {
    encoding: 'utf8',
  });
  expect(made.status, made.stderr).toBe(0);
  site = await serveBuiltSite(dir, db);
  const results = built(site.out, 'results');
  const groups = built(site.out, 'groups');
  // Two members of a run group, as its page links them: the compare page's answer is the verdicts between them.
  const groupHtml = readFileSync(join(site.out, groups[0]!, 'index.html'), 'utf8');
  const pair = [...new Set([...groupHtml.matchAll(/\/results\/([0-9a-f]{64})\//g)].map((m) => m[1]!))].slice(
    0,
    2,
  );
  expect(pair.length).toBe(2);
  const pages: [string, string][] = [
    ['home', '/'],
    ['explorer', '/explore/'],
    ...built(site.out, 'explore').map((p): [string, string] => ['explorer', p]),
    ['machines', '/machines/'],
    ...built(site.out, 'machines').map((p): [string, string] => ['machine', p]),
    ['compare', `/compare/?r=${pair.map((id) => id.slice(0, 12)).join(',')}`],
    // The results list, and each further page of it (40 rows a page, lib/pages.ts).
    ['list', '/results/'],
    ...built(site.out, 'results/page').map((p): [string, string] => ['list', p]),
    ...results.map((p): [string, string] => ['result', p]),
    ...groups.map((p): [string, string] => ['group', p]),
    ...built(site.out, 'versions').map((p): [string, string] => ['version', p]),
  ];
  // Every other page of the build, whatever it is: a page added later is measured without a line here.
  const known = new Set(pages.map(([, path]) => path.split('?')[0]));
  const every = everyPage(site.out);
  pages.push(...every.filter((p) => !known.has(p)).map((p): [string, string] => ['other', p]));
  const anchors = crossPageAnchors(site.out, every);
  for (const screen of SCREENS) {
    const context = await site.browser.newContext({
      viewport: { width: screen.width, height: screen.height },
    });
    const page = await context.newPage();
    for (const [kind, path] of pages) {
      // The compare page and the explorer's own page draw in the browser from fetched JSON: wait for
      // the network to settle there; every other page is whole when it has loaded.
      const drawn = kind === 'compare' || path === '/explore/';
      await page.goto(site.url + path, { waitUntil: drawn ? 'networkidle' : 'load' });
      measures.push({ kind, path, width: screen.width, ...(await measure(page, ANSWER[kind] ?? [])) });
    }
    await context.close();
    landings.push(...(await follow(site, anchors, screen.width, screen.height, true)));
  }
  landings.push(...(await follow(site, anchors, 390, 844, false)));
}, 900_000);

afterAll(() => site?.close());

const of = (kinds: string[]) => measures.filter((m) => kinds.includes(m.kind));
const budget = (width: number) => SCREENS.find((s) => s.width === width)!;

/** What breaks a budget on these pages, one line each, so a failure names every page at once. */
function overBudget(kinds: string[]): string[] {
  return of(kinds).flatMap((m) => {
    const out: string[] = [];
    const b = budget(m.width);
    if (m.height > b.budget) out.push(`${m.path} at ${m.width}: ${m.height} px tall (budget ${b.budget})`);
    if (m.docWidth > m.width) out.push(`${m.path} at ${m.width}: the page is ${m.docWidth} px wide`);
    for (const t of m.wide) {
      if (m.width === 1280) out.push(`${m.path} at 1280: ${t.table} is ${t.width} px in a ${t.box} px box`);
      else if (!t.scrolls || !t.sticky)
        out.push(
          `${m.path} at ${m.width}: ${t.table} (${t.width} px) ${t.scrolls ? '' : 'does not scroll in its own box'}${!t.scrolls && !t.sticky ? ' and ' : ''}${t.sticky ? '' : 'has no fixed first column'}`,
        );
    }
    return out;
  });
}

describe.skipIf(!hasData)('page budgets on the site built from data/', () => {
  it('reads every result, group and version page of the build', () => {
    for (const kind of ['result', 'group', 'version', 'machine', 'explorer', 'list', 'other'])
      expect(of([kind]).length, kind).toBeGreaterThan(0);
    // Every index.html of dist/ was read, at each width.
    for (const screen of SCREENS)
      expect(
        new Set(measures.filter((m) => m.width === screen.width).map((m) => m.path.split('?')[0])),
      ).toEqual(new Set(everyPage(site.out)));
  });

  it('the results list and its further pages: within the height budgets, tables in their boxes', () => {
    expect(overBudget(['list'])).toEqual([]);
  });

  it('result pages: within the height budgets, tables in their boxes', () => {
    expect(overBudget(['result'])).toEqual([]);
  });

  it('home, explorer, machines and compare: within the height budgets, tables in their boxes', () => {
    expect(overBudget(['home', 'explorer', 'machines', 'machine', 'compare'])).toEqual([]);
  });

  it('run group pages: within the height budgets, tables in their boxes', () => {
    expect(overBudget(['group'])).toEqual([]);
  });

  it('version pages: within the height budgets, tables in their boxes', () => {
    expect(overBudget(['version'])).toEqual([]);
  });

  it('every other page (methodology, published, open data, the versions list…): within the height budgets, tables in their boxes', () => {
    expect(overBudget(['other'])).toEqual([]);
  });

  it('a link to a place in another page lands on it shown, its folded section open (with JavaScript)', () => {
    expect(landings.length).toBeGreaterThan(0);
    expect(landings.filter((l) => l.problem !== null).map((l) => `${l.link} ${l.how}: ${l.problem}`)).toEqual(
      [],
    );
  });

  it('result, compare, machine, explorer and home pages show their answer in the first screen', () => {
    const late = of(Object.keys(ANSWER)).flatMap((m) =>
      m.answer
        .filter((a) => a.top === null || a.top >= budget(m.width).height)
        .map(
          (a) => `${m.path} at ${m.width}: ${a.selector} ${a.top === null ? 'not shown' : `at y=${a.top}`}`,
        ),
    );
    expect(late).toEqual([]);
  });
});

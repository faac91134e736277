// The throughput-at-latency-objective figure on the site (issue 17 item 4): a real `run --slo`
// against a throwaway redis-server on a free port, its signed result ingested, the real site built
// and read in Chromium. The result page states "max N ops/s at p99 ≤ 20 ms" with its bracket and
// draws the search's steps (latency against offered load, the objective as a rule); the explorer and
// the version page name the figure for what it is. Every page fits a phone's width.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingest, openDatabase } from '@redis-benchdb/db';
import { generateSigningKey, type ResultV1, type SloSearch, signResult } from '@redis-benchdb/result';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slug } from '../src/lib/routes/routes.js';
import { runNode } from './build.js';
import { startRedis } from './redis-server.js';
import { type ServedSite, serveBuiltSite } from './served-site.js';
import { vouchFor } from './vouch.js';

const BIN = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));
let dir: string;
let redis: ChildProcess;
let site: ServedSite;
let resultId: string;
let search: SloSearch;
let product: string;
let version: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbdb-site-slo-'));
  const started = await startRedis(dir);
  redis = started.child;
  const port = started.port;
  // p99 within 20 ms: met on a busy 2-core host at low rates (its p99 there is a few ms), so the
  // search brackets; 15 s keeps the test short.
  const out = join(dir, 'slo.json');
  const env = { ...process.env, REDIS_BENCHDB_CONFIG_DIR: join(dir, 'config'), REDIS_BENCHDB_SERVER: '' };
  // --preload: without it this run once failed schema validation (hitRatio below 0 from an
  // open-loop GET step over missing keys), an engine bug outside this test's subject.
  const args = ['run', '-t', 'get', '-c', '10', '-r', '1000', '--preload', '-p', String(port)];
  const run = await runNode(
    [BIN, ...args, '--slo', 'p99<=20ms', '--slo-budget', '15', '--no-store', '--out', out],
    env,
  );
  expect(run.status, run.stderr).toBe(0);
  const doc = JSON.parse(JSON.parse(readFileSync(out, 'utf8')).payload) as ResultV1;
  search = doc.cells[0]!.trials[0]!.sloSearch!;
  product = doc.environment.server!.product;
  version = doc.environment.server!.version!;
  // Stored as a suite result, so that the version page (standard-v1 results only) has an SLO cell:
  // re-signed by a key of the test's own, since the suite is part of what is signed. (The ad hoc
  // original is not stored beside it: ingest refuses the same histograms under a second key.)
  // The run bound its own key (keyFingerprint): the test's key binds itself in its place.
  const { keyFingerprint: _bound, ...unbound } = doc;
  const asSuite: ResultV1 = { ...unbound, suite: { id: 'standard-v1', version: 2, profile: 'full' } };
  const dbPath = join(dir, 'benchdb.sqlite');
  const db = openDatabase(dbPath);
  try {
    // Named as a signer the operator knows, so the corroboration rule admits it and the version page
    // sets it out (a fresh key's lone result is provisional: listed, and in no summary).
    const key = generateSigningKey();
    vouchFor(db, key);
    resultId = ingest(db, JSON.stringify(signResult(asSuite, key.privateKeyPem))).id;
  } finally {
    db.close();
  }
  site = await serveBuiltSite(dbPath, join(dir, 'dist'));
});

afterAll(async () => {
  await site?.close();
  redis?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(path: string, width: number): Promise<Page> {
  const ctx = await site.browser.newContext({ viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const res = await page.goto(site.url + path, { waitUntil: 'networkidle' });
  expect(res?.status(), path).toBe(200);
  const sideways = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(sideways, `${path} at ${width} px`).toBeLessThanOrEqual(0);
  expect(errors, path).toEqual([]);
  return page;
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');

describe('a search cell on the site', () => {
  it('the result page states the answer with its bracket, as the search recorded it', async () => {
    for (const width of [1280, 390]) {
      const page = await open(`/results/${resultId}/`, width);
      const figure = (await page.locator('li[data-slo-cell="GET p99<=20ms"] .slo-figure').textContent())!;
      if (search.outcome === 'bracketed')
        expect(figure).toBe(
          `max ${n(search.answerOpsPerSec!)} ops/s at p99 ≤ 20 ms (bracket ${n(search.bracket.passOpsPerSec!)}–${n(search.bracket.failOpsPerSec!)})`,
        );
      else expect(figure).toContain(`no answer for max ops/s at p99 ≤ 20 ms: ${search.outcome}`);
      await page.context().close();
    }
  });

  it('draws latency against offered load from every step, with the objective as a rule, inside the frame', async () => {
    for (const width of [1280, 390]) {
      const page = await open(`/results/${resultId}/`, width);
      // The drawing shown at this width (the figure holds a wide and a narrow one).
      const chart = page.locator(`#chart-slo-${slug('GET p99<=20ms')} svg.chart-svg:visible`);
      // Two dots per step (p99 and p50), a line per latency, and the objective's rule at 20 ms.
      const dots = await chart.locator('g[aria-label=dot] path').count();
      expect(dots).toBe(2 * search.steps.length);
      expect(await chart.locator('g[aria-label=line] path').count()).toBe(2);
      expect(await chart.locator('g[aria-label=rule] line').count()).toBe(
        search.outcome === 'bracketed' ? 2 : 1,
      );
      // Plotted: the marks have size on screen and lie within the plot's frame.
      const geometry = await chart.evaluate((svg) => {
        const frame = svg.querySelector('[aria-label=frame]')!.getBoundingClientRect();
        const marks = [...svg.querySelectorAll('g[aria-label=dot] path, g[aria-label=line] path')].map((m) =>
          m.getBoundingClientRect(),
        );
        return {
          frame: { l: frame.left, r: frame.right, t: frame.top, b: frame.bottom },
          marks: marks.map((m) => ({ l: m.left, r: m.right, t: m.top, b: m.bottom, w: m.width + m.height })),
        };
      });
      for (const m of geometry.marks) {
        expect(m.w).toBeGreaterThan(0);
        expect(m.l).toBeGreaterThanOrEqual(geometry.frame.l - 1);
        expect(m.r).toBeLessThanOrEqual(geometry.frame.r + 1);
        expect(m.t).toBeGreaterThanOrEqual(geometry.frame.t - 1);
        expect(m.b).toBeLessThanOrEqual(geometry.frame.b + 1);
      }
      // The passing steps are filled, the failing ones hollow: as many of each as the search recorded.
      const hollow = await chart.locator('g[aria-label=dot][fill=white] path').count();
      expect(hollow).toBe(2 * search.steps.filter((s) => !s.pass).length);
      // The data table beside it holds every step's p99 as the runner read it.
      const table = (await page.locator(`#chart-slo-${slug('GET p99<=20ms')} table`).textContent())!;
      for (const s of search.steps) expect(table).toContain(String(s.percentilesUs[0]));
      await page.context().close();
    }
  });

  it('the explorer and the version page name the figure: max ops/s at p99 ≤ 20 ms', async () => {
    const explore = readdirSync(join(dir, 'dist', 'explore'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(dir, 'dist', 'explore', d.name, 'index.html')))
      .map((d) => `/explore/${d.name}/`)
      .find((p) => readFileSync(join(dir, 'dist', p, 'index.html'), 'utf8').includes('GET p99&lt;=20ms'));
    expect(explore).toBeDefined();
    for (const width of [1280, 390]) {
      const page = await open(explore!, width);
      expect(await page.locator('main').textContent()).toContain('max ops/s at p99 ≤ 20 ms');
      await page.context().close();
      const v = await open(`/versions/${slug(product, version)}/`, width);
      const row = v.locator('table.versions tr[data-cell="GET p99<=20ms"]');
      expect(await row.locator('th .slo-figure').textContent()).toBe('max ops/s at p99 ≤ 20 ms');
      if (search.outcome === 'bracketed') {
        const figure = Number((await row.locator('.ops').first().textContent())!.replace(/,/g, ''));
        // The cell's figure is the answer's step: what it achieved at the answer's offered rate.
        expect(Math.abs(figure - search.answerOpsPerSec!)).toBeLessThanOrEqual(
          0.05 * search.answerOpsPerSec!,
        );
      }
      await v.context().close();
    }
  });
});

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type BenchDb, contentId, encodeEnvelope, ingest, openDatabase } from '@redis-benchdb/db';
import { canonicalJson, generateSigningKey, type ResultV1, signResult } from '@redis-benchdb/result';
import { signPayload } from '@redis-benchdb/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../tools/chromium.mjs';
import { serveStatic } from '../tools/serve-static.mjs';
import { buildSite } from './build.js';
import { sweepResult } from './fixture.js';
import { vouchFor } from './vouch.js';

// Results stored before result.v1 limited free text: ingest() now refuses them, so they are written
// as an older version wrote them, straight into the tables. The real build must still succeed, show
// them without letting their text reorder or widen the page, and leave out (and report) a result it
// cannot draw rather than fail for all of them.

const key = generateSigningKey();
const RLO = '\u202e';
const VERSION = `7.0.15${RLO}`; // the override the issue saw: it reversed "on <cpu>" after it
const CPU_MODEL = `AMD EPYC 7763 64-Core ${'Processor'.repeat(110)}`.slice(0, 1000);

/**
 * Store `r` as an older version would have: ingest a clean twin (same columns but the edited ones),
 * then move its rows to the id, envelope, document and text of `r`.
 */
function storeAsOldRow(db: BenchDb, r: ResultV1, clean: ResultV1): string {
  const twin = ingest(db, JSON.stringify(signResult(clean, key.privateKeyPem))).id;
  // Signed as the runner signs, without the schema check signResult now makes.
  const payload = canonicalJson(r);
  const envelope = signPayload(payload, key) as string;
  const id = contentId(payload);
  const sql = db.sqlite;
  const cols = (t: string) => (sql.pragma(`table_info(${t})`) as { name: string }[]).map((c) => c.name);
  const copy = (table: string, idCol: string, set: Record<string, string | null>) => {
    const names = cols(table);
    const select = names.map((n) => (n === idCol ? '@id' : n in set ? `@${n}` : n));
    sql
      .prepare(
        `INSERT INTO ${table} (${names.join(', ')}) SELECT ${select.join(', ')} FROM ${table} WHERE ${idCol} = @twin`,
      )
      .run({ ...set, id, twin });
  };
  sql.transaction(() => {
    copy('results', 'id', {
      cpu_model: r.environment.client.cpu.model,
      server_version: r.environment.server.version,
    });
    // The envelope where migration 14 keeps it: encoded, in result_envelopes.
    const { histograms, body } = encodeEnvelope(envelope);
    sql
      .prepare('INSERT INTO result_envelopes (result_id, histograms, body) VALUES (?, ?, ?)')
      .run(id, histograms, body);
    copy('cells', 'result_id', {});
    copy('warnings', 'result_id', {});
    sql.prepare('DELETE FROM results WHERE id = ?').run(twin);
  })();
  return id;
}

let dir: string;
let out: string;
let stdout: string;
let ids: { plain: string; hostile: string; huge: string; undrawable: string };
let server: { url: string; close: () => Promise<void> };
let browser: Browser;

// Builds a site (about 70 s on a shared 2-core VM): its own timeout over the tier's minute (vitest.config.ts).
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbdb-site-text-'));
  const dbPath = join(dir, 'benchdb.sqlite');
  const db = openDatabase(dbPath);
  vouchFor(db, key);
  try {
    const hostile = sweepResult(2, 0.6, (r) => {
      r.environment.client.cpu.model = CPU_MODEL;
      r.environment.server.version = VERSION;
    });
    // A stored row an older build let through whose cell has no figures: its page cannot be prepared. (An
    // undecodable histogram no longer is such a case: the site falls back to the figures the cell states.)
    const undrawable = sweepResult(3, 0.7, (r) => {
      (r.cells[0] as { opsPerSec: unknown }).opsPerSec = null;
    });
    ids = {
      plain: ingest(db, JSON.stringify(signResult(sweepResult(1, 0.5), key.privateKeyPem))).id,
      hostile: storeAsOldRow(db, hostile, sweepResult(2, 0.6)),
      undrawable: storeAsOldRow(db, undrawable, sweepResult(3, 0.7)),
      huge: storeAsOldRow(
        db,
        sweepResult(4, 0.8, (r) => {
          r.environment.client.cpu.model = `Xeon ${'9'.repeat(1 << 20)}`;
        }),
        sweepResult(4, 0.8),
      ),
    };
  } finally {
    db.close();
  }
  out = join(dir, 'dist');
  stdout = await buildSite(dbPath, out); // throws unless the build exits 0
  server = await serveStatic(out);
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(path: string): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const res = await page.goto(server.url + path, { waitUntil: 'networkidle' });
  expect(res?.status(), path).toBe(200);
  return page;
}

describe('a result stored with an RTL override and a 1,000-character CPU model', () => {
  it('the heading reads in its own order: server, version, "on", CPU', async () => {
    const page = await open(`/results/${ids.hostile}/`);
    const h1 = page.locator('h1');
    const text = (await h1.textContent())!;
    expect(text.startsWith('Redis 7.0.15 on AMD EPYC 7763 64-Core Processor')).toBe(true);
    expect(text).not.toContain(RLO);
    // Where the words are drawn, not only their DOM order: "on" right of the version, left of the CPU.
    const boxes = await h1.evaluate((el) => {
      const [version, cpu] = [...el.querySelectorAll('bdi')];
      const textNode = [...el.childNodes].find((n) => n.nodeType === 3 && n.textContent!.includes('on'))!;
      const range = document.createRange();
      const at = textNode.textContent!.indexOf('on');
      range.setStart(textNode, at);
      range.setEnd(textNode, at + 2);
      const on = range.getClientRects()[0]!;
      return {
        versionRight: version!.getClientRects()[0]!.right,
        onLeft: on.left,
        onRight: on.right,
        cpuLeft: cpu!.getClientRects()[0]!.left,
        onTop: on.top,
        cpuTop: cpu!.getClientRects()[0]!.top,
      };
    });
    expect(boxes.versionRight).toBeLessThanOrEqual(boxes.onLeft);
    expect(boxes.onRight).toBeLessThanOrEqual(boxes.cpuLeft);
    expect(boxes.cpuTop).toBeCloseTo(boxes.onTop, 0);
    // Cut in the heading, whole in its title and in the environment table.
    expect(Array.from(text).length).toBeLessThan(200);
    expect(await h1.locator('bdi').nth(1).getAttribute('title')).toBe(CPU_MODEL);
    expect(await page.locator('table.env').textContent()).toContain(CPU_MODEL);
    await page.context().close();
  });

  it('no page it is on overflows 1280 px sideways', async () => {
    for (const path of [`/results/${ids.hostile}/`, '/results/', '/machines/', '/versions/', '/']) {
      const page = await open(path);
      const widths = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(widths.scroll, path).toBeLessThanOrEqual(widths.client);
      await page.context().close();
    }
  });
});

describe('a result stored with a 1 MB CPU model', () => {
  it('gets a page of ordinary weight: the model is cut where it is shown', () => {
    const page = (id: string) => readFileSync(join(out, 'results', id, 'index.html')).length;
    expect(page(ids.huge)).toBeLessThan(page(ids.plain) + 20_000);
  });
});

describe('a result whose chart cannot be drawn', () => {
  it('is left out, named with its error in the build output and in build-report.json', () => {
    const page = `/results/${ids.undrawable}/`;
    expect(existsSync(join(out, page, 'index.html'))).toBe(false);
    expect(stdout).toMatch(new RegExp(`skipped ${page}: \\S`));
    const report = JSON.parse(readFileSync(join(out, 'build-report.json'), 'utf8'));
    expect(report.skippedPages).toEqual([{ page, error: expect.stringMatching(/\S/) }]);
    expect(report.failedPngs).toEqual([]);
  });

  it('while the others are built', () => {
    for (const id of [ids.plain, ids.hostile, ids.huge])
      expect(existsSync(join(out, 'results', id, 'index.html')), id).toBe(true);
  });
});

describe("site:build's closing lines (issue 41)", () => {
  it("end on the newest result, its address on the local site and the command that serves it; Astro's log is in a file", () => {
    const lines = stdout.trimEnd().split('\n');
    const [result, link, serve] = lines.slice(-3);
    expect(result).toMatch(/^newest result: \S.* cells? on .*, \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    const id = /^ {2}http:\/\/localhost:4321\/results\/([0-9a-f]{64})\/$/.exec(link ?? '')?.[1];
    expect(id, link).toBeDefined();
    expect(existsSync(join(out, 'results', id!, 'index.html'))).toBe(true);
    expect(serve).toMatch(/^serve it: (pnpm|npx -y pnpm@\d+) site:preview$/);
    const log = /Astro's log: (\S+)$/m.exec(stdout)?.[1];
    // In the tool's own state folder, not beside the output folder, whose parent is not the tool's.
    expect(log).toMatch(/^.*\/dist\.state\/redis-benchdb\/site-build\/dist-[0-9a-f]{8}\.log$/);
    expect(readdirSync(dirname(out)).filter((n) => /log/.test(n))).toEqual([]);
    // Astro's chunk list and timings went to the file, not to the reader's screen; as plain text.
    expect(stdout).not.toMatch(/\[vite\]|\[build\] Complete!/);
    const text = readFileSync(log!, 'utf8');
    expect(text).toMatch(/\[build\] Complete!/);
    expect(text).not.toContain('\u001b[');
  });
});

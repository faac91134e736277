// Issue 39, items 5 and 6, on the site built from data/ and its explorer JSON: nothing is called a 95%
// interval unless it is one (a min–max of 3 trials was, in every one of the explorer's 3-trial bars),
// and for every pair that an interleaved run group holds, the explorer's figure and verdict are the
// group page's (the explorer said "0.95x no verdict: the two 95% intervals overlap" for Intel redis
// 7.0.15 against 6.0.20 at GET P10, where the group page said 0.95x (0.92–0.99) slower).

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { iterateSiteResults, openDatabase, readDocument, type SiteResultRow } from '@redis-benchdb/db';
import { type ResultV1, spreadOf, spreadText } from '@redis-benchdb/result';
import { parseHTML } from 'linkedom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRatio } from '../src/lib/compare/compare.js';
import { type Bar, comparison, type WorkloadData } from '../src/lib/explore/explore.js';
import { buildSite, runNode } from './build.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
let dir: string;
let out: string;
let rows: SiteResultRow[];
/** Each stored result's document, by id. */
const docs = new Map<string, ResultV1>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbdb-intervals-'));
  const db = join(dir, 'benchdb.sqlite');
  const built = await runNode([join(root, 'scripts/db-build.mjs'), '--db', db], process.env);
  expect(built.status, built.stderr).toBe(0);
  out = join(dir, 'dist');
  await buildSite(db, out);
  const opened = openDatabase(db, { readonly: true });
  rows = [...iterateSiteResults(opened)];
  for (const [i, r] of rows.entries()) {
    if (i % 20 === 0) await tick();
    const doc = readDocument(opened, r.id);
    if (doc && r.kind === 'signed') docs.set(r.id, JSON.parse(doc) as ResultV1);
  }
  opened.sqlite.close();
}, 900_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function* files(d: string, ext: string): Generator<string> {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = join(d, e.name);
    if (e.isDirectory()) yield* files(p, ext);
    else if (e.name.endsWith(ext)) yield p;
  }
}

/** Lets vitest's worker answer its runner between long synchronous stretches (build.ts says why). */
const tick = () => new Promise((resolve) => setImmediate(resolve));

const workloads = () =>
  [...files(join(out, 'explore/w'), '.json')].map((f) => JSON.parse(readFileSync(f, 'utf8')) as WorkloadData);

/** A result's cell of the explorer's workload (its id: the fingerprint's first 16 hex digits). */
const sameWorkload = (c: { workloadFingerprint: string }, d: WorkloadData) =>
  c.workloadFingerprint.replace(/^sha256:/, '').startsWith(d.workload.id);

/** A page's text as a reader sees it (tags gone, entities read). */
const text = (html: string) => parseHTML(html).document.body?.textContent?.replace(/\s+/g, ' ') ?? '';

/**
 * A "95%" claim on a range of figures ("95% interval 57,008–78,969"), with the words around it. It is
 * honest when it is a paired interval (Student's t on the per-round ratios of a run group: "paired"
 * before it, or "rounds" beside it) or the median's exact interval from 6 values on.
 */
const CLAIM =
  /(.{0,40})95% (?:CI|interval)((?: of the median of (\d+) \w+)?[^0-9–]{0,12}[\d,.]+ ?– ?[\d,.]+(.{0,20}))/g;

function dishonest(m: RegExpMatchArray): boolean {
  const [, before = '', , n, after = ''] = m;
  if (/paired|rounds;/.test(before) || /^ ?over \d+ rounds/.test(after)) return false;
  return !(n && Number(n) >= 6);
}

describe('no "95%" beside a min–max of trials', () => {
  it('the explorer JSON names each bar’s spread for what it is, computed from the trials', () => {
    let ranges = 0;
    let intervals = 0;
    for (const d of workloads())
      for (const b of d.bars) {
        expect(b.spread, `${d.workload.label} ${b.server}`).not.toBe("95% interval of the result's trials");
        if (b.results !== 1) continue;
        const cell = docs.get(b.sample)?.cells.find((c) => sameWorkload(c, d));
        expect(cell, `${d.workload.label}: ${b.sample}`).toBeDefined();
        const s = spreadOf(cell!.trials.map((t) => t.opsPerSec));
        expect(b.spread).toBe(spreadText(s, 'trial'));
        if (s.kind === 'single') continue;
        expect([b.lo, b.hi]).toEqual([s.low, s.high]);
        if (s.kind === 'range') ranges++;
        else intervals++;
        // Only an interval is called one; a range of 3 trials is never "95%".
        expect(b.spread.startsWith('95%'), b.spread).toBe(s.kind === 'median-ci');
        expect(b.interval).toBe(s.kind === 'median-ci');
      }
    // data/ holds both: 3-trial results (ranges) and the 10-round compare groups (intervals).
    expect(ranges).toBeGreaterThan(100);
    expect(intervals).toBeGreaterThan(10);
  });

  it('every page gives "95%" only beside an interval that is one', async () => {
    const bad: string[] = [];
    let pages = 0;
    let claims = 0;
    for (const f of files(out, '.html')) {
      pages++;
      const t = text(readFileSync(f, 'utf8'));
      for (const m of t.matchAll(CLAIM)) {
        claims++;
        if (dishonest(m)) bad.push(`${f.slice(out.length)}: ${m[0]}`);
      }
      // The old names for a range of trials, whatever follows them.
      if (/95% CI|95% interval of the result's trials/.test(t)) bad.push(`${f.slice(out.length)}: 95% CI`);
      if (pages % 20 === 0) await tick();
    }
    expect(pages).toBeGreaterThan(100);
    // The paired intervals and the 10-trial results' intervals are there, and named so.
    expect(claims).toBeGreaterThan(100);
    expect(bad).toEqual([]);
  });
});

/** A run group's page: its members in order (by result id) and its matrices' entries. */
function groupPage(id: string) {
  const { document } = parseHTML(readFileSync(join(out, `groups/${id}/index.html`), 'utf8'));
  const members = [...document.querySelectorAll('ol.members li a')].map(
    (a) => /\/results\/([0-9a-f]{64})\//.exec(a.getAttribute('href') ?? '')?.[1] ?? '',
  );
  return { document, members };
}

describe('for every pair an interleaved group holds, the explorer says what the group page says', () => {
  it('the same ratio, interval and verdict, with any member as the baseline', async () => {
    const byId = new Map(rows.map((r) => [r.id, r]));
    const pages = new Map<string, ReturnType<typeof groupPage>>();
    const memberOf = (group: string, b: Bar) =>
      rows.find(
        (r) =>
          r.runGroupId === group &&
          `${r.serverProduct} ${r.serverVersion}` === b.server &&
          r.machineKey === b.machineKey &&
          r.configKey === b.configKey,
      );
    let matrix = 0;
    let table = 0;
    let paired = 0;
    for (const d of workloads()) {
      await tick();
      const bars = new Map(d.bars.map((b) => [b.key, b]));
      for (const base of d.bars)
        for (const [key, evidence] of Object.entries(base.paired ?? {})) {
          const other = bars.get(key)!;
          const c = comparison(other, base)!;
          expect(c.basis).toBe('paired');
          paired++;
          const group = evidence.groupId!;
          const page = pages.get(group) ?? groupPage(group);
          pages.set(group, page);
          const a = memberOf(group, base);
          const b = memberOf(group, other);
          expect(a && b, `${group}: ${base.server} and ${other.server}`).toBeTruthy();
          const ia = page.members.indexOf(a!.id);
          const ib = page.members.indexOf(b!.id);
          const label = docs.get(a!.id)!.cells.find((x) => sameWorkload(x, d))!.label;
          // The first-screen matrix against baseline ia, where it has this workload's row.
          const entry = page.document
            .querySelector(`#vs-${ia} tr[data-row="${label}"]`)
            ?.querySelectorAll('td')[ib];
          if (entry) {
            matrix++;
            const at = `${group} ${label}: ${other.server} over ${base.server}`;
            expect(Number(entry.getAttribute('data-ratio')), at).toBe(c.ratio);
            expect(Number(entry.getAttribute('data-low')), at).toBe(c.low);
            expect(Number(entry.getAttribute('data-high')), at).toBe(c.high);
            expect(entry.getAttribute('data-outcome'), at).toBe(c.verdict.outcome);
            expect(entry.getAttribute('title')?.startsWith(`${c.verdict.text} (`), at).toBe(true);
          }
          // Every cell against the first member: the table in the page's details.
          if (ia === 0) {
            const row = [...page.document.querySelectorAll('table.compare-cells tbody tr')].find(
              (tr) => tr.querySelector('td')?.textContent === label,
            );
            const td = row?.querySelectorAll('td')[ib + 1];
            expect(td, `${group} ${label}`).toBeDefined();
            table++;
            const shown = td!.textContent!.replace(/\s+/g, ' ');
            expect(shown).toContain(formatRatio(c.ratio, c.low, c.high));
            const reason = c.verdict.text.slice(c.verdict.text.indexOf(':') + 1).trim();
            expect(shown).toContain(`${c.verdict.outcome}${reason}`);
          }
          expect(byId.get(a!.id)?.runGroupId).toBe(group);
        }
    }
    // data/ has ten-member interleaved groups on each kind: many pairs, each read on its group page.
    expect(paired).toBeGreaterThan(1000);
    expect(matrix).toBeGreaterThan(100);
    expect(table).toBeGreaterThan(100);
  });

  it('the issue’s case: Intel redis 7.0.15 over 6.0.20 at GET P10 is the group’s paired "slower"', () => {
    const d = workloads().find((w) => w.workload.label === 'GET P10 16B')!;
    const intel = d.bars.filter((b) => b.machine.startsWith('Intel') && b.configDefault);
    const base = intel.find((b) => b.server === 'redis 6.0.20')!;
    const other = intel.find((b) => b.server === 'redis 7.0.15')!;
    const c = comparison(other, base)!;
    expect(c.basis).toBe('paired');
    expect(c.verdict.outcome).toBe('slower');
    expect(formatRatio(c.ratio, c.low, c.high)).toBe('0.953×');
    expect(c.verdict.text).toBe('slower: paired interval 0.919–0.988 excludes 1 (10 rounds)');
  });
});

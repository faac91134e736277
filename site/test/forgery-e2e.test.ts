// Issue 39's Done when, first bullet: forged submissions through the real service change nothing a
// reader is told. The database is built from data/ by db:build's script, the service (packages/server)
// takes the forgeries over HTTP with the project's data keys named, and the real site is built before
// and after: the home page's figures, every rank of the pre-existing results, every version page's
// ratios and verdicts and every explorer view's bars must be byte-identical (summary-regions.ts).
//
// Each case is a list of submissions. Case (b), figures x1.5 from fresh keys, is stored and held back by
// the corroboration rule. Cases (a), (c) and (d) are refused at the door by issue 39's other items, each
// with its code: a run group bound to its key, one normal form for identity text, no run ending after it
// was received.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, type ServiceProcess, spawnService } from '../../packages/server/test/fixtures.js';
import { buildSite, runNode } from './build.js';
import {
  endingIn,
  type Forgery,
  forge,
  LOOKALIKE_CPUS,
  LOOKALIKE_VERSIONS,
  lookalikeCpu,
  lookalikeVersion,
  PROJECT_KEYS,
  VICTIM_GROUP,
  withoutGroup,
} from './forgery-fixture.js';
import { changedPages, groupMembers, type SummaryRegions, summaryRegions } from './summary-regions.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'rbdb-forgery-'));
const dbPath = join(dir, 'benchdb.sqlite');

let service: ServiceProcess;
let before: SummaryRegions;
let resultIds: string[];
let versionSlugs: string[];
let membersBefore: string[];
let builds = 0;

async function build(): Promise<string> {
  const out = join(dir, `site-${++builds}`);
  await buildSite(dbPath, out);
  return out;
}

/** POST each; what the service answered, by forgery. */
async function submit(forgeries: readonly Forgery[]) {
  const out: { forgery: Forgery; status: number; json: Record<string, unknown> }[] = [];
  for (const forgery of forgeries) {
    const reply = await post(`${service.url}/api/v1/results`, forgery.envelope);
    out.push({ forgery, status: reply.status, json: reply.json });
  }
  return out;
}

/** Stored (201) and held back by the corroboration rule, or refused outright (4xx): never admitted. */
function expectStoredAndHeldOrRefused(replies: Awaited<ReturnType<typeof submit>>) {
  for (const { forgery, status, json } of replies) {
    if (status >= 400 && status < 500) continue;
    expect(status, forgery.name).toBe(201);
    const ranks = json.ranks as { held: string | null }[];
    expect(ranks.length, forgery.name).toBeGreaterThan(0);
    for (const r of ranks) expect(r.held, forgery.name).toMatch(/^(OUTLIER|PROVISIONAL)$/);
  }
}

beforeAll(async () => {
  const made = await runNode([join(root, 'scripts/db-build.mjs'), '--db', dbPath], process.env);
  if (made.status !== 0) throw new Error(`db:build failed: ${made.stderr}`);
  const out = await build();
  resultIds = readdirSync(join(out, 'results')).filter((d) => /^[0-9a-f]{64}$/.test(d));
  versionSlugs = readdirSync(join(out, 'versions')).filter((d) => d !== 'index.html');
  before = summaryRegions(out, resultIds, versionSlugs);
  membersBefore = groupMembers(out, VICTIM_GROUP);
  // Shared by both tests: spawnService kills a service that is not after each test.
  service = await spawnService(dbPath, ['--project-keys', PROJECT_KEYS], { sharedByTests: true });
});

afterAll(() => {
  service?.child.kill('SIGTERM');
});

describe('forged submissions through the service (issue 39, Done when)', () => {
  it('(b) a fresh key’s x1.5 copy of a data/ result without its group, then four such keys: no headline, rank, version ratio or verdict moves', async () => {
    expect(before.headlineRows.length).toBeGreaterThan(0);
    expect(before.pages.get('/')).toMatch(/table\.headline-rank/);

    const one = await submit([forge('b: key 1', 1.5, withoutGroup)]);
    expect(one[0]!.status).toBe(201);
    const afterOne = await build();
    expect(changedPages(before, summaryRegions(afterOne, resultIds, versionSlugs))).toEqual([]);
    // The submitter is told where it stands, and that it is held back.
    expectStoredAndHeldOrRefused(one);
    // Shown on its own page, marked, with the statistic it failed.
    const forgedId = one[0]!.json.id as string;
    expect(readdirSync(join(afterOne, 'results'))).toContain(forgedId);
    const html = readFileSync(join(afterOne, 'results', forgedId, 'index.html'), 'utf8');
    expect(html).toMatch(
      /<p class="held-back" id="held-back" data-held="outlier"[^>]*><strong>Outlier<\/strong>/,
    );
    expect(html).toMatch(/median absolute deviations from the median of the \d+ admitted results/);

    const three = await submit(['b: key 2', 'b: key 3', 'b: key 4'].map((n) => forge(n, 1.5, withoutGroup)));
    for (const r of three) expect(r.status, r.forgery.name).toBe(201);
    const afterFour = await build();
    expect(changedPages(before, summaryRegions(afterFour, resultIds, versionSlugs))).toEqual([]);
    expectStoredAndHeldOrRefused(three);
  });

  it('(a) a copy that keeps the group, (c) lookalike CPU models and versions, (d) a run ending 23 h ahead: refused, or held and changing nothing', async () => {
    const cases: { name: string; forgeries: Forgery[] }[] = [
      { name: 'a', forgeries: [forge('a: keeps runGroup.id', 1.5)] },
      {
        name: 'c',
        forgeries: [
          ...LOOKALIKE_CPUS.map(([n, how]) => forge(`c: CPU model, ${n}`, 1.5, lookalikeCpu(how))),
          ...LOOKALIKE_VERSIONS.map(([n, how]) => forge(`c: version, ${n}`, 1.5, lookalikeVersion(how))),
        ],
      },
      // x1.5 like the others, so that only its date is left to the refusal asserted below.
      { name: 'd', forgeries: [forge('d: ends 23 h ahead', 1.5, endingIn(23))] },
    ];
    const replies = new Map<string, Awaited<ReturnType<typeof submit>>>();
    for (const c of cases) replies.set(c.name, await submit(c.forgeries));
    for (const c of ['a', 'c', 'd']) expectStoredAndHeldOrRefused(replies.get(c)!);

    const out = await build();
    const after = summaryRegions(out, resultIds, versionSlugs);
    expect(changedPages(before, after)).toEqual([]);
    // No lookalike row in the home table: the same rows, read as a reader reads them.
    expect(after.headlineRows).toEqual(before.headlineRows);
    // No new version page that reads like a genuine one (a lookalike version refused or folded into it).
    const slugsAfter = readdirSync(join(out, 'versions')).filter((d) => d !== 'index.html');
    const lookalikePages = slugsAfter.filter((s) => !versionSlugs.includes(s));
    // Issue 39 item 3: lookalike versions are refused, so no version page reads like a genuine one.
    expect(lookalikePages).toEqual([]);
    // Issue 39 item 1: the project's group gains no member from another key.
    expect(groupMembers(out, VICTIM_GROUP)).toEqual(membersBefore);
    // What the service answered each case: refused at the door, with the code that says why.
    const codes = (c: string) =>
      replies
        .get(c)!
        .map(({ forgery, status, json }) => [
          forgery.name,
          status,
          (json as { error?: { code?: string } }).error?.code,
        ]);
    for (const [name, status, code] of codes('a'))
      expect([name, status, code]).toEqual([name, 422, 'RUN_GROUP_NOT_YOURS']);
    for (const [name, status, code] of codes('c'))
      expect([name, status, code]).toEqual([name, 422, 'IDENTITY_TEXT']);
    for (const [name, status, code] of codes('d'))
      expect([name, status, code]).toEqual([name, 422, 'FINISHED_IN_FUTURE']);
  });
});

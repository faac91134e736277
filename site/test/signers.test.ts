// Several data keys, one signer: this project signs its own measurements with a new key on each
// machine it measures on, and `pnpm db:build` records every key in data/results/keys/ as one signer.
// Here a data directory holds two data keys signing the same server version on one machine, and a
// third party's key signing another version there. The database db:build makes, and the site built
// from it and read in Chromium, must count two signers (the project and the third party), never three
// keys, and name no version on the strength of the project's two keys.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cellsByWorkload,
  cohort,
  commonWorkload,
  keyFileName,
  keySigners,
  openDatabase,
  PROJECT_SIGNER,
  RankIndex,
  resultRanks,
} from '@redis-benchdb/db';
import {
  environmentFingerprint,
  generateSigningKey,
  keyFingerprint,
  type ResultV1,
  signResult,
} from '@redis-benchdb/result';
import { remeasured } from '@redis-benchdb/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headlineEntries } from '../src/lib/home/headline.js';
import { runNode } from './build.js';
import { type ServedSite, serveBuiltSite } from './served.js';
import { MACHINE } from './trust-fixture.js';

const example = readFileSync(new URL('../../schemas/examples/valid/suite-run.json', import.meta.url), 'utf8');
const dbBuild = fileURLToPath(new URL('../../scripts/db-build.mjs', import.meta.url));

/** The fixture result (Redis 7.4.1 on a Xeon) with its own key prefix, measured again at `speed`, on `version`. */
function run(n: number, speed: number, version = '7.4.1'): ResultV1 {
  const r = JSON.parse(example) as ResultV1;
  r.keyPrefix = `rbdb:${n.toString(16).padStart(6, '0')}:`;
  const out = speed === 1 ? r : remeasured(r, speed);
  out.environment.server!.version = version;
  out.environment.fingerprint = environmentFingerprint(out.environment);
  return out;
}

const [data1, data2, stranger] = [generateSigningKey(), generateSigningKey(), generateSigningKey()];
const STRANGER = keyFingerprint(stranger.publicKeyPem);
const dir = mkdtempSync(join(tmpdir(), 'rbdb-signers-'));
const dbPath = join(dir, 'benchdb.sqlite');
let printed = '';
let site: ServedSite;
const ids: Record<'d1' | 'd2' | 'other', string> = { d1: '', d2: '', other: '' };

beforeAll(async () => {
  const data = join(dir, 'data');
  const keys = join(data, 'results/keys');
  const machine = join(data, 'results/intel-xeon-e-2388g-16cpu-bare');
  mkdirSync(keys, { recursive: true });
  mkdirSync(machine, { recursive: true });
  mkdirSync(join(data, 'third-party'));
  for (const k of [data1, data2])
    writeFileSync(join(keys, keyFileName(keyFingerprint(k.publicKeyPem))), k.publicKeyPem);
  const write = (path: string, r: ResultV1, key: typeof data1) => {
    const env = signResult(r, key.privateKeyPem);
    writeFileSync(path, JSON.stringify(env));
    return env;
  };
  // Two sessions of the project, each with its own data key, measured 7.4.1 on the same machine.
  write(join(machine, 'a.json'), run(1, 1), data1);
  write(join(machine, 'b.json'), run(2, 1.02), data2);
  // A third party's 7.2.5 on the same CPU, slower.
  write(join(data, 'third-party/c.json'), run(3, 0.9, '7.2.5'), stranger);
  const r = await runNode([dbBuild, '--data', data, '--db', dbPath], process.env);
  if (r.status !== 0) throw new Error(`db:build failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  printed = r.stdout;
  const db = openDatabase(dbPath, { readonly: true });
  const byKey = db.sqlite.prepare('SELECT id FROM results WHERE key_fingerprint = ?').pluck();
  ids.d1 = byKey.get(keyFingerprint(data1.publicKeyPem)) as string;
  ids.d2 = byKey.get(keyFingerprint(data2.publicKeyPem)) as string;
  ids.other = byKey.get(STRANGER) as string;
  db.close();
  site = await serveBuiltSite(dir, dbPath);
});

afterAll(() => site?.close());

describe('the database db:build makes', () => {
  it('records both data keys as one signer, the project, and leaves the third party its own', () => {
    expect(printed).toContain('db:build: 3 results');
    expect(printed).toContain('2 data keys as one signer');
    const db = openDatabase(dbPath, { readonly: true });
    expect(keySigners(db)).toEqual(
      [keyFingerprint(data1.publicKeyPem), keyFingerprint(data2.publicKeyPem)]
        .sort()
        .map((keyFingerprint) => ({ keyFingerprint, signer: PROJECT_SIGNER })),
    );
    db.close();
  });

  it('counts two signers in the GET cohort of three results from three keys: by cohort, by count and by the rank index', () => {
    const db = openDatabase(dbPath, { readonly: true });
    const fp = commonWorkload(db, 'standard-v1', 'GET')!;
    const c = cohort(db, fp);
    expect(c.members).toHaveLength(3);
    expect(c.distinctSigners).toBe(2);
    const counted = resultRanks(db, ids.d1, { sameCpu: true }).find((r) => r.label === 'GET')!;
    expect(counted.overall).toMatchObject({ size: 3, distinctSigners: 2 });
    expect(counted.sameCpu).toMatchObject({ size: 3, distinctSigners: 2 });
    const get = new RankIndex(db).ranks(ids.d2).find((r) => r.label === 'GET')!;
    expect(get.overall).toMatchObject({ size: 3, distinctSigners: 2 });
    db.close();
  });

  it('gives the headline one signer behind 7.4.1 (two keys), so no version has the two signers a name needs', () => {
    const db = openDatabase(dbPath, { readonly: true });
    const cells = cellsByWorkload(db, [commonWorkload(db, 'standard-v1', 'GET')!]);
    db.close();
    const byVersion = headlineEntries(cells, (c) => c.serverVersion!);
    expect(byVersion.find((e) => e.name === '7.4.1')).toMatchObject({ results: 2, signers: 1, keys: 2 });
    expect(byVersion.find((e) => e.name === '7.2.5')).toMatchObject({ results: 1, signers: 1, keys: 1 });
    expect(byVersion.every((e) => e.signers < 2)).toBe(true);
    // The machine has both signers' results: that one may be named, on two signers.
    const [machine] = headlineEntries(cells, (c) => c.cpuModel!);
    expect(machine).toMatchObject({ results: 3, signers: 2, keys: 3 });
  });
});

describe('the site built from it, in Chromium', () => {
  const text = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim();

  it('ranks no server version in the headline, and names the machine on its two signers', async () => {
    const { page, errors } = await site.open('/');
    // Versions are set against each other per machine kind (issue 27), never ranked by pooled medians.
    expect(await page.locator('section.headline[data-by="version"]').count()).toBe(0);
    // The machine is named, on the two signers it has: the project (two keys) and the third party.
    const machine = text(
      await page.locator('section.headline[data-by="machine"] .headline-top').textContent(),
    );
    expect(machine).toContain(`Fastest machine on the baseline GET: ${MACHINE} · `);
    expect(machine).toContain("the median of 2 signers' medians over 3 results (3 keys).");
    expect(text(await page.locator('body').textContent())).not.toMatch(
      /\b[2-9] keys' medians|\b2 signers' medians over 2 results/,
    );
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("ranks a data key's result in a cohort of 3 results from 2 signers, and names its signer", async () => {
    const { page, errors } = await site.open(`/results/${ids.d1}/`);
    const get = text(await page.locator('ul.ranks li').filter({ hasText: 'GET:' }).first().textContent());
    expect(get).toContain('cohort: 3 results from 2 signers');
    expect(text(await page.locator('body').textContent())).toContain(
      `key ${keyFingerprint(data1.publicKeyPem)}: one of the keys of ${PROJECT_SIGNER}, which count as one signer.`,
    );
    const theirs = await site.open(`/results/${ids.other}/`);
    expect(text(await theirs.page.locator('body').textContent())).toContain(`key ${STRANGER}.`);
    expect(errors).toEqual([]);
    expect(theirs.errors).toEqual([]);
    await page.context().close();
    await theirs.page.context().close();
  });

  it("the explorer's bar for 7.4.1 shows 2 results and 1 signer", async () => {
    const { page, errors } = await site.open('/explore/?test=GET&pipeline=1&value=256&conns=50&keys=1000000');
    await page.locator('#explore .explore-out:not([aria-busy=true])').waitFor();
    const header = await page.locator('table.explore-bars thead th').allTextContents();
    expect(header[6]).toBe('signers');
    const rows = await page
      .locator('table.explore-bars tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())),
      );
    const bar = rows.find((r) => r[0]!.includes('7.4.1'))!;
    expect([bar[5], bar[6]]).toEqual(['2', '1']);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson, type EnvelopeV1, verifyEnvelope } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import {
  type BenchDb,
  count,
  decodeEnvelope,
  EnvelopeFormatError,
  encodeEnvelope,
  getStoredResult,
  ingest,
  integrityCheck,
  openDatabase,
  readDocument,
  readEnvelope,
  SCHEMA_VERSION,
  schemaVersion,
} from '../src/index.js';
import { encodeEnvelope as shippedEncode } from '../src/migrations/shipped/envelope-codec-v1.js';
import { tempPath } from './fixtures.js';
import { backToVersion13 } from './support/old-store.js';

const RESULTS = fileURLToPath(new URL('../../../data/results/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function* filesUnder(dir: string, keep: (name: string) => boolean): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* filesUnder(path, keep);
    else if (keep(name)) yield path;
  }
}
const envelopeFiles = (dir: string) => filesUnder(dir, (n) => n.endsWith('.json') && n !== 'manifest.json');

// Every real result in data/results, as the exact text ingest verifies (canonical, RFC 8785).
const REAL = [...envelopeFiles(RESULTS)].map((file) => canonicalJson(JSON.parse(readFileSync(file, 'utf8'))));

function buildReal(path: string): { db: BenchDb; ids: string[] } {
  const db = openDatabase(path);
  // The data's received times are not their runs': one `now` after every run keeps them all.
  const ids = REAL.map((text) => ingest(db, text, { now: new Date('2026-12-01T00:00:00Z') }).id);
  return { db, ids };
}

function expectEveryEnvelopeBack(db: BenchDb, ids: string[]): void {
  ids.forEach((id, i) => {
    const text = readEnvelope(db, id);
    expect(text === REAL[i], `result ${id}: the stored envelope is not the verified bytes`).toBe(true);
    expect(verifyEnvelope(JSON.parse(text!) as EnvelopeV1).ok).toBe(true);
    expect(readDocument(db, id)).toBe((JSON.parse(REAL[i]!) as EnvelopeV1).payload);
    expect(getStoredResult(db, id)?.json).toBe(REAL[i]);
  });
}

describe('envelope store (issue 42)', () => {
  it('is the one read path: no live SQL but store/ reads the envelope or document column of results', () => {
    const live = ['packages/db/src', 'packages/server/src', 'packages/cli/src', 'site/src']
      .flatMap((d) => [...filesUnder(join(ROOT, d), (n) => /\.(ts|astro)$/.test(n))])
      .filter((f) => !/packages\/db\/src\/(migrations|store)\//.test(f));
    expect(live.length).toBeGreaterThan(100);
    // A SELECT or json_extract naming the column (r.document, envelope): what migration 14 emptied.
    const reading =
      /(?:SELECT[^`;]*?\b(?:r\.)?(?:envelope|document)\b[^`;]*?FROM results|json_extract\(\s*(?:r\.)?document)/;
    expect(
      live.filter((f) => reading.test(readFileSync(f, 'utf8'))).map((f) => f.slice(ROOT.length)),
    ).toEqual([]);
  });

  it('has real results to check', () => {
    expect(REAL.length).toBeGreaterThan(50);
  });

  // One database of the real results for both: ingesting them is most of this file's time.
  it('gives back every stored real result byte for byte, and it still verifies; migrated from the old way too', () => {
    const path = tempPath();
    const { db, ids } = buildReal(path);
    expectEveryEnvelopeBack(db, ids);
    // Stored once: no signed row keeps its envelope or document text.
    expect(
      db.sqlite.prepare("SELECT count(*) FROM results WHERE envelope <> '' OR document <> ''").pluck().get(),
    ).toBe(0);
    const before = count(db);
    const groups = db.sqlite.prepare('SELECT id, run_group_size FROM results ORDER BY id').all();
    backToVersion13(db);
    expect(schemaVersion(db.sqlite)).toBe(13);
    // The old layout really is the old one: the envelope and its payload as text, histograms in cells.
    expect(db.sqlite.prepare("SELECT count(*) FROM results WHERE envelope = ''").pluck().get()).toBe(0);
    expect(db.sqlite.prepare('SELECT count(*) FROM cells WHERE histogram IS NULL').pluck().get()).toBe(0);
    db.close();
    const again = openDatabase(path);
    expect(schemaVersion(again.sqlite)).toBe(SCHEMA_VERSION);
    expect(count(again)).toEqual(before);
    expect(again.sqlite.prepare('SELECT count(*) FROM result_envelopes').pluck().get()).toBe(ids.length);
    expect(again.sqlite.prepare('SELECT id, run_group_size FROM results ORDER BY id').all()).toEqual(groups);
    expect(groups.some((g) => (g as { run_group_size: number | null }).run_group_size !== null)).toBe(true);
    expectEveryEnvelopeBack(again, ids);
    expect(integrityCheck(again)).toEqual(['ok']);
    again.close();
  });

  it('stores a quick result in under a third of its text, histograms as binary', () => {
    const quick = REAL.find((t) => JSON.parse(JSON.parse(t).payload).suite?.profile === 'quick')!;
    const { histograms, body } = encodeEnvelope(quick);
    expect(histograms.length + body.length).toBeLessThan(Buffer.byteLength(quick) / 1.8);
    // Histograms as bytes: a quarter smaller than their base64.
    expect(histograms.includes(Buffer.from('HISTF'))).toBe(false);
  });

  it('keeps a histogram value that is not canonical base64 as its text', () => {
    const payload = JSON.stringify({ histogram: 'AAA', responseHistogram: '', other: 'x' });
    const text = JSON.stringify({ schema: 'redis-benchdb/envelope.v1', payload });
    expect(decodeEnvelope(encodeEnvelope(text))).toBe(text);
  });

  it('reads what the migration wrote with its frozen encoder', () => {
    for (const text of REAL.slice(0, 5)) expect(decodeEnvelope(shippedEncode(text))).toBe(text);
  });

  it('refuses stored bytes it cannot give back, saying why', () => {
    const stored = encodeEnvelope(REAL[0]!);
    const newer = { ...stored, body: Buffer.concat([Buffer.of(9), stored.body.subarray(1)]) };
    expect(() => decodeEnvelope(newer)).toThrow(
      'invalid stored envelope: format 1/9, this redis-benchdb reads 1',
    );
    const short = { ...stored, histograms: stored.histograms.subarray(0, 100) };
    expect(() => decodeEnvelope(short)).toThrow(EnvelopeFormatError);
    const extra = { ...stored, histograms: Buffer.concat([stored.histograms, Buffer.of(0)]) };
    expect(() => decodeEnvelope(extra)).toThrow('histograms left over');
  });
});

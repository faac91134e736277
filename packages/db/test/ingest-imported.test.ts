import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { count, findCells, IngestError, ingestImported, openDatabase } from '../src/index.js';

const DATA = new URL('../../../data/imported/', import.meta.url);
const files = readdirSync(DATA).filter((f) => f.endsWith('.json'));
const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-imp-'));
  dirs.push(dir);
  return openDatabase(join(dir, 'bench.sqlite'));
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('ingestImported', () => {
  it('stores every published result in data/imported, with its cells, once', () => {
    const db = fresh();
    const ids = new Set<string>();
    let cells = 0;
    for (const f of files) {
      const text = readFileSync(new URL(f, DATA), 'utf8');
      const out = ingestImported(db, text);
      expect(out.duplicate).toBe(false);
      ids.add(out.id);
      cells += (JSON.parse(text) as { cells: unknown[] }).cells.length;
      expect(ingestImported(db, text)).toEqual({ ...out, duplicate: true });
    }
    expect(ids.size).toBe(files.length);
    expect(count(db)).toMatchObject({ results: files.length, cells });
    db.close();
  });

  it('keeps what the source said and nothing more: the ops/s as published, no fingerprint', () => {
    const db = fresh();
    const file = files.find((f) => f.includes('x5670-tcp'))!;
    const doc = JSON.parse(readFileSync(new URL(file, DATA), 'utf8')) as {
      cells: { test: string; opsPerSec: number }[];
    };
    ingestImported(db, JSON.stringify(doc));
    const set = doc.cells.find((c) => c.test === 'SET')!;
    const rows = findCells(db, { test: 'SET' });
    expect(rows.map((r) => r.opsMedian)).toContain(set.opsPerSec);
    expect(rows.every((r) => r.workloadFingerprint === null)).toBe(true);
    db.close();
  });

  it('refuses bad documents with the right code and writes nothing', () => {
    const db = fresh();
    const good = JSON.parse(readFileSync(new URL(files[0]!, DATA), 'utf8'));
    const cases: [string, string][] = [
      ['{not json', 'MALFORMED_JSON'],
      [JSON.stringify({ ...good, schema: 'redis-benchdb/imported.v9' }), 'UNSUPPORTED_SCHEMA'],
      [JSON.stringify({ ...good, source: { ...good.source, kind: 'made-up' } }), 'INVALID_RESULT'],
      [JSON.stringify({ ...good, cells: [{ ...good.cells[0], opsPerSec: -5 }] }), 'IMPLAUSIBLE'],
    ];
    for (const [body, code] of cases) {
      let err: unknown;
      try {
        ingestImported(db, body);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(IngestError);
      expect((err as IngestError).code).toBe(code);
    }
    expect(count(db).results).toBe(0);
    db.close();
  });
});

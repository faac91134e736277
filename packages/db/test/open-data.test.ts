import { describe, expect, it } from 'vitest';
import { exportJsonlLines, exportJsonlPart, ingest, openDataParts } from '../src/index.js';
import { body, tempDb, variant } from './fixtures.js';

describe('open data parts (issue 42)', () => {
  it('splits the export by month of receipt: the parts together are the export, each known by what it lists', () => {
    const db = tempDb();
    ingest(db, body(variant(1)), { now: new Date('2025-03-06T12:00:00Z') });
    ingest(db, body(variant(2)), { now: new Date('2025-03-31T23:59:59Z') });
    ingest(db, body(variant(3)), { now: new Date('2025-04-01T00:00:00Z') });
    const parts = openDataParts(db);
    expect(parts.map((p) => [p.file, p.results])).toEqual([
      ['results-2025-03.jsonl', 2],
      ['results-2025-04.jsonl', 1],
    ]);
    expect(parts.flatMap((p) => [...exportJsonlPart(db, p.month)])).toEqual([...exportJsonlLines(db)]);
    // A new result in April changes April's fingerprint only.
    ingest(db, body(variant(4)), { now: new Date('2025-04-02T00:00:00Z') });
    const after = openDataParts(db);
    expect(after[0]).toEqual(parts[0]);
    expect(after[1]!.fingerprint).not.toBe(parts[1]!.fingerprint);
    expect([...exportJsonlPart(db, '2025-05')]).toEqual([]);
  });

  it('refuses a month that is not YYYY-MM', () => {
    const db = tempDb();
    expect(() => exportJsonlPart(db, '2025-13')).toThrow('invalid month: "2025-13" (YYYY-MM, e.g. 2026-11)');
    expect(() => exportJsonlPart(db, "2025' OR 1")).toThrow(RangeError);
  });
});

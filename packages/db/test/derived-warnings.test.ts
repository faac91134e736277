import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ingest } from '../src/index.js';
import { tempDb } from './fixtures.js';

// A data/ result whose runner predates IO_THREADS_OVER_CPUS: io-threads 2 on a server pinned to CPU 1.
const file = new URL(
  '../../../data/results/amd-epyc-2cpu-kvm/2026-11-25-2142880df6b23590-1-redis-server-6.0.20-io-threads-2.json',
  import.meta.url,
);

describe('ingest stores the warnings a result implies but its runner did not write', () => {
  it('an old io-threads 2 result on one CPU gets IO_THREADS_OVER_CPUS in its rows and its badge list', () => {
    const db = tempDb();
    const text = readFileSync(file, 'utf8');
    const { id } = ingest(db, text, { now: new Date('2026-11-25T12:00:00Z') });
    const rows = db.sqlite
      .prepare('SELECT code, message FROM warnings WHERE result_id = ? ORDER BY idx')
      .all(id) as { code: string; message: string }[];
    const crowded = rows.filter((r) => r.code === 'IO_THREADS_OVER_CPUS');
    expect(crowded).toHaveLength(1);
    expect(crowded[0]?.message).toMatch(
      /^io-threads 2 on a server that could run on one CPU \(1\): .*Derived from/,
    );
    const { warning_codes } = db.sqlite.prepare('SELECT warning_codes FROM results WHERE id = ?').get(id) as {
      warning_codes: string;
    };
    expect(warning_codes.split(',')).toContain('IO_THREADS_OVER_CPUS');
  });
});

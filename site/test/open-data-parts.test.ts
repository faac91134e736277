// The open data in monthly parts (issue 42): a new result rewrites only its month's part; the other
// parts are the cache's files, linked, not written again; the index names each with its SHA-256.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingest, openDatabase } from '@redis-benchdb/db';
import { afterAll, describe, expect, it } from 'vitest';
import { startOpenData } from '../integration/open-data.mjs';

const RESULTS = fileURLToPath(new URL('../../data/results/amd-epyc-2cpu-kvm/', import.meta.url));
const files = readdirSync(RESULTS)
  .filter((f) => f.endsWith('.json') && f !== 'manifest.json')
  .sort()
  .slice(0, 4)
  .map((f) => readFileSync(join(RESULTS, f), 'utf8'));

const dir = mkdtempSync(join(tmpdir(), 'rbdb-open-data-'));
const dbPath = join(dir, 'benchdb.sqlite');
const cache = join(dir, 'cache');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function store(text: string, receivedAt: string): void {
  const db = openDatabase(dbPath);
  ingest(db, text, { now: new Date(receivedAt) });
  db.close();
}

interface Index {
  schema: string;
  results: number;
  parts: { file: string; month: string; results: number; bytes: number; sha256: string }[];
}

async function publish(name: string) {
  process.env.REDIS_BENCHDB_DB = dbPath;
  const out = join(dir, name);
  const outcome = (await startOpenData(out, cache)) as { reused: boolean; partsWritten: number };
  const index = JSON.parse(readFileSync(join(out, 'results-parts.json'), 'utf8')) as Index;
  for (const p of index.parts) {
    const bytes = readFileSync(join(out, p.file));
    expect(bytes.length, p.file).toBe(p.bytes);
    expect(createHash('sha256').update(bytes).digest('hex'), p.file).toBe(p.sha256);
    expect(bytes.toString('utf8').trim().split('\n'), p.file).toHaveLength(p.results);
  }
  return { out, outcome, index };
}

describe('open data parts', () => {
  it('writes only the part a new result changes; the others are the cached files', async () => {
    store(files[0]!, '2026-11-30T10:00:00Z');
    store(files[1]!, '2026-11-30T11:00:00Z');
    store(files[2]!, '2026-12-01T09:00:00Z');
    const first = await publish('build-1');
    expect(first.index.schema).toBe('redis-benchdb/open-data-parts.v1');
    expect(first.index.parts.map((p) => [p.file, p.results])).toEqual([
      ['results-2026-11.jsonl', 2],
      ['results-2026-12.jsonl', 1],
    ]);
    expect(first.outcome.partsWritten).toBe(2);
    expect(readdirSync(first.out).sort()).toEqual([
      'benchdb.sqlite',
      'results-2026-11.jsonl',
      'results-2026-12.jsonl',
      'results-parts.json',
    ]);

    store(files[3]!, '2026-12-02T09:00:00Z');
    const second = await publish('build-2');
    expect(second.outcome).toMatchObject({ partsWritten: 1, reused: false });
    const inode = (build: string, f: string) => statSync(join(dir, build, f)).ino;
    // November did not change: the same file (one inode), not a copy written again.
    expect(inode('build-2', 'results-2026-11.jsonl')).toBe(inode('build-1', 'results-2026-11.jsonl'));
    expect(second.index.parts[0]).toEqual(first.index.parts[0]);
    expect(inode('build-2', 'results-2026-12.jsonl')).not.toBe(inode('build-1', 'results-2026-12.jsonl'));
    expect(second.index.parts[1]).toMatchObject({ file: 'results-2026-12.jsonl', results: 2 });

    const third = await publish('build-3');
    expect(third.outcome).toMatchObject({ partsWritten: 0, reused: true });
    expect(third.index).toEqual(second.index);
  });
});

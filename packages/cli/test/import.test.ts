import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { findCells, openDatabase } from '@redis-benchdb/db';
import { describe, expect, it } from 'vitest';
import { memtierTable, printedMsToUs } from '../../result/test/memtier-stdout.js';
import { runCli, tempDir, testServer } from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

const execFileP = promisify(execFile);

cliFileHooks({ built: false });

describe('redis-benchdb import', () => {
  it('stores real redis-benchmark output with the figures the tool printed', async () => {
    const server = await testServer();
    const dir = await tempDir();
    const db = path.join(dir, 'bench.sqlite');
    const run = (extra: string[]) =>
      execFileP('redis-benchmark', ['-p', String(server.port), '-t', 'set,get', '-n', '20000', ...extra], {
        encoding: 'utf8',
      });
    const csv = path.join(dir, 'out.csv');
    const quiet = path.join(dir, 'out-q.txt');
    const csvText = (await run(['--csv'])).stdout;
    const quietText = (await run(['-q'])).stdout;
    await writeFile(csv, csvText);
    await writeFile(quiet, quietText);

    const res = await runCli(['import', '--db', db, '--json', csv, quiet]);
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as { results: { ok: boolean; id: string; cells: number }[] };
    expect(out.results.map((r) => r.ok)).toEqual([true, true]);

    // The tool's own figures, read independently of the parser.
    const csvRps = Object.fromEntries(
      [...csvText.matchAll(/^"(\w+)","([\d.]+)"/gm)].map((m) => [m[1]!, Number(m[2])]),
    );
    const qRps = Object.fromEntries(
      [...quietText.matchAll(/(\w+): ([\d.]+) requests per second/g)].map((m) => [m[1]!, Number(m[2])]),
    );
    const opened = openDatabase(db, { readonly: true });
    for (const test of ['SET', 'GET']) {
      const stored = findCells(opened, { test }).map((c) => c.opsMedian);
      expect(stored).toContain(csvRps[test]);
      expect(stored).toContain(qRps[test]);
    }
    opened.close();

    const again = await runCli(['import', '--db', db, csv]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already stored as');
  });

  it('stores real memtier_benchmark JSON with the ops/s and percentiles the tool printed', async () => {
    // memtier_benchmark 2.0.0's --json-out-file document and the stdout of the same run (see
    // packages/result/test/fixtures/README.md): the stored figures must be the printed ones.
    const fixtures = new URL('../../result/test/fixtures/', import.meta.url);
    const json = fileURLToPath(new URL('memtier-2.0.0-real.json', fixtures));
    const printed = memtierTable(readFileSync(new URL('memtier-2.0.0-real.stdout.txt', fixtures), 'utf8'));
    const db = path.join(await tempDir(), 'bench.sqlite');

    const res = await runCli(['import', '--db', db, '--json', json]);
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as { results: { ok: boolean; cells: number }[] };
    expect(out.results).toMatchObject([{ ok: true, cells: 3 }]);

    const opened = openDatabase(db, { readonly: true });
    const cells = findCells(opened);
    opened.close();
    expect(cells.map((c) => [c.label, c.test]).sort()).toEqual([
      ['Gets', 'GET'],
      ['Sets', 'SET'],
      ['Totals', 'SET:GET 1:1'],
    ]);
    for (const c of cells) {
      const row = printed[c.label]!;
      expect(c.opsMedian, c.label).toBe(Number(row['Ops/sec']));
      expect(c.p50Us, c.label).toBe(printedMsToUs(row['p50 Latency']!));
      expect(c.p99Us, c.label).toBe(printedMsToUs(row['p99 Latency']!));
      expect(c.p999Us, c.label).toBe(printedMsToUs(row['p99.9 Latency']!));
    }
  });

  it('refuses a file that holds no result, naming it, and exits 1', async () => {
    const dir = await tempDir();
    const junk = path.join(dir, 'notes.txt');
    await writeFile(junk, 'hello\n');
    const res = await runCli(['import', '--db', path.join(dir, 'b.sqlite'), junk]);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/notes\.txt: FAILED: no redis-benchmark result/);
  });
});
